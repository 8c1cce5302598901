/* vecnet FMU run-time: FMI 2.0, Model Exchange and Co-Simulation in one
 * binary. Float64 (Real) variables only; the value references are those of
 * runtime.h. */
#include <stdio.h>
#include <string.h>

#include "fmi2Functions.h"
#include "runtime.h"

#define INST ((vn_instance *)c)

/* the logger is variadic and formats its message like printf: pass the
   message with each '%' doubled */
static void emit2(const vn_instance *inst, int status, const char *category,
                  const char *message)
{
    char escaped[2048];
    size_t i, j = 0;
    fmi2CallbackLogger logger = (fmi2CallbackLogger)inst->logger;
    for (i = 0; message[i] != '\0' && j + 2 < sizeof escaped; i++) {
        if (message[i] == '%') escaped[j++] = '%';
        escaped[j++] = message[i];
    }
    escaped[j] = '\0';
    logger(inst->env, inst->name, (fmi2Status)status, category, escaped);
}

static fmi2Status st(int vn_status) { return vn_status == VN_OK ? fmi2OK : fmi2Error; }

static fmi2Status refuse(fmi2Component c, const char *fn, const char *why)
{
    vn_log(INST, VN_ERROR, "%s: %s", fn, why);
    return fmi2Error;
}

static int is_kind(fmi2Component c, const char *fn, int kind)
{
    if (INST->kind == kind) return 1;
    vn_log(INST, VN_ERROR, "%s is a %s function; the instance is %s", fn,
           kind == VN_ME ? "Model Exchange" : "Co-Simulation",
           INST->kind == VN_ME ? "Model Exchange" : "Co-Simulation");
    return 0;
}

/* ------------------------------------------------------------------------ */
/* common functions                                                         */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }

const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn,
                               size_t nCategories, const fmi2String categories[])
{
    (void)categories;
    if (c == NULL) return fmi2Error;
    if (nCategories > 0 && categories == NULL)
        return refuse(c, "fmi2SetDebugLogging", "NULL categories");
    INST->logging_on = loggingOn ? 1 : 0;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType,
                              fmi2String fmuGUID, fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible, fmi2Boolean loggingOn)
{
    vn_instance *inst;
    const char *why = NULL;
    (void)fmuResourceLocation;
    (void)visible;
    if (functions == NULL) return NULL;
    if (instanceName == NULL || instanceName[0] == '\0')
        why = "fmi2Instantiate: missing instance name";
    else if (fmuType != fmi2ModelExchange && fmuType != fmi2CoSimulation)
        why = "fmi2Instantiate: the FMU type is neither fmi2ModelExchange nor "
              "fmi2CoSimulation";
    else if (fmuGUID == NULL || strcmp(fmuGUID, VN_TOKEN) != 0)
        why = "fmi2Instantiate: the GUID is not this model's (" VN_TOKEN ")";
    if (why != NULL) {
        if (functions->logger != NULL)
            functions->logger(functions->componentEnvironment,
                              instanceName ? instanceName : "", fmi2Error,
                              "logStatusError", why);
        return NULL;
    }
    inst = vn_new(instanceName, fmuType == fmi2ModelExchange ? VN_ME : VN_CS,
                  functions->componentEnvironment, (vn_any_fn)functions->logger,
                  emit2, functions->allocateMemory, functions->freeMemory);
    if (inst == NULL) {
        if (functions->logger != NULL)
            functions->logger(functions->componentEnvironment, instanceName,
                              fmi2Error, "logStatusError",
                              "fmi2Instantiate: out of memory");
        return NULL;
    }
    inst->logging_on = loggingOn ? 1 : 0;
    return inst;
}

void fmi2FreeInstance(fmi2Component c) { vn_delete(INST); }

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    (void)toleranceDefined;
    (void)tolerance;
    if (c == NULL) return fmi2Error;
    if (vn_check_mode(INST, "fmi2SetupExperiment", VN_M(VN_MODE_INSTANTIATED)))
        return fmi2Error;
    INST->time = startTime;
    INST->start_time = startTime;
    INST->last_successful_time = startTime;
    INST->stop_time_defined = stopTimeDefined ? 1 : 0;
    INST->stop_time = stopTime;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    if (c == NULL) return fmi2Error;
    if (vn_check_mode(INST, "fmi2EnterInitializationMode", VN_M(VN_MODE_INSTANTIATED)))
        return fmi2Error;
    INST->mode = VN_MODE_INIT;
    return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    if (c == NULL) return fmi2Error;
    if (vn_check_mode(INST, "fmi2ExitInitializationMode", VN_M(VN_MODE_INIT)))
        return fmi2Error;
    return st(vn_exit_initialization(INST, "fmi2ExitInitializationMode"));
}

fmi2Status fmi2Terminate(fmi2Component c)
{
    if (c == NULL) return fmi2Error;
    if (vn_check_mode(INST, "fmi2Terminate",
                      VN_M(VN_MODE_INIT) | VN_M(VN_MODE_EVENT)
                          | VN_M(VN_MODE_CONTINUOUS) | VN_M(VN_MODE_STEP)))
        return fmi2Error;
    INST->mode = VN_MODE_TERMINATED;
    return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component c)
{
    if (c == NULL) return fmi2Error;
    vn_restart(INST);
    return fmi2OK;
}

/* ------------------------------------------------------------------------ */
/* getting and setting values                                               */

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[])
{
    if (c == NULL) return fmi2Error;
    return st(vn_get_float64(INST, "fmi2GetReal", vr, nvr, value));
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
    if (c == NULL) return fmi2Error;
    return st(vn_set_float64(INST, "fmi2SetReal", vr, nvr, value));
}

#define VN_NO_VARIABLES(fn, type, constness)                                      \
    fmi2Status fn(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,     \
                  constness type value[])                                          \
    {                                                                              \
        (void)vr;                                                                  \
        (void)value;                                                               \
        if (c == NULL) return fmi2Error;                                           \
        if (nvr == 0) return fmi2OK;                                               \
        return refuse(c, #fn, "the model has no variables of this type");          \
    }

VN_NO_VARIABLES(fmi2GetInteger, fmi2Integer, )
VN_NO_VARIABLES(fmi2GetBoolean, fmi2Boolean, )
VN_NO_VARIABLES(fmi2GetString, fmi2String, )
VN_NO_VARIABLES(fmi2SetInteger, fmi2Integer, const)
VN_NO_VARIABLES(fmi2SetBoolean, fmi2Boolean, const)
VN_NO_VARIABLES(fmi2SetString, fmi2String, const)

/* ------------------------------------------------------------------------ */
/* FMU state                                                                */

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    if (c == NULL) return fmi2Error;
    return st(vn_get_state(INST, "fmi2GetFMUstate", FMUstate));
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
    if (c == NULL) return fmi2Error;
    return st(vn_set_state(INST, "fmi2SetFMUstate", FMUstate));
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    if (c == NULL) return fmi2Error;
    return st(vn_free_state(INST, "fmi2FreeFMUstate", FMUstate));
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate,
                                      size_t *size)
{
    (void)FMUstate;
    if (c == NULL) return fmi2Error;
    if (size == NULL) return refuse(c, "fmi2SerializedFMUstateSize", "NULL size");
    *size = sizeof(vn_snapshot);
    return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate,
                                 fmi2Byte serializedState[], size_t size)
{
    if (c == NULL) return fmi2Error;
    if (FMUstate == NULL || ((vn_snapshot *)FMUstate)->magic != VN_SNAPSHOT_MAGIC)
        return refuse(c, "fmi2SerializeFMUstate", "not an FMU state of this model");
    if (serializedState == NULL || size < sizeof(vn_snapshot))
        return refuse(c, "fmi2SerializeFMUstate", "the buffer is too small");
    memcpy(serializedState, FMUstate, sizeof(vn_snapshot));
    return fmi2OK;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[],
                                   size_t size, fmi2FMUstate *FMUstate)
{
    if (c == NULL) return fmi2Error;
    return st(vn_deserialize_state(INST, "fmi2DeSerializeFMUstate", serializedState,
                                   size, FMUstate));
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c,
                                        const fmi2ValueReference vUnknown_ref[],
                                        size_t nUnknown,
                                        const fmi2ValueReference vKnown_ref[],
                                        size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
    (void)vUnknown_ref;
    (void)nUnknown;
    (void)vKnown_ref;
    (void)nKnown;
    (void)dvKnown;
    (void)dvUnknown;
    if (c == NULL) return fmi2Error;
    return refuse(c, "fmi2GetDirectionalDerivative",
                  "directional derivatives are not provided");
}

/* ------------------------------------------------------------------------ */
/* Model Exchange                                                           */

fmi2Status fmi2EnterEventMode(fmi2Component c)
{
    if (c == NULL || !is_kind(c, "fmi2EnterEventMode", VN_ME)) return fmi2Error;
    if (vn_check_mode(INST, "fmi2EnterEventMode",
                      VN_M(VN_MODE_EVENT) | VN_M(VN_MODE_CONTINUOUS)))
        return fmi2Error;
    INST->mode = VN_MODE_EVENT;
    return fmi2OK;
}

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *eventInfo)
{
    int changed = 0;
    if (c == NULL || !is_kind(c, "fmi2NewDiscreteStates", VN_ME)) return fmi2Error;
    if (vn_check_mode(INST, "fmi2NewDiscreteStates", VN_M(VN_MODE_EVENT)))
        return fmi2Error;
    if (eventInfo == NULL) return refuse(c, "fmi2NewDiscreteStates", "NULL eventInfo");
    eventInfo->newDiscreteStatesNeeded = fmi2False;
    eventInfo->terminateSimulation = fmi2False;
    eventInfo->nominalsOfContinuousStatesChanged = fmi2False;
    eventInfo->valuesOfContinuousStatesChanged = fmi2False;
    eventInfo->nextEventTimeDefined = fmi2False;
    eventInfo->nextEventTime = 0.0;
    if (vn_event_update(INST, "fmi2NewDiscreteStates", &changed) != VN_OK)
        return fmi2Error;
    eventInfo->valuesOfContinuousStatesChanged = changed ? fmi2True : fmi2False;
    return fmi2OK;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c)
{
    if (c == NULL || !is_kind(c, "fmi2EnterContinuousTimeMode", VN_ME)) return fmi2Error;
    if (vn_check_mode(INST, "fmi2EnterContinuousTimeMode", VN_M(VN_MODE_EVENT)))
        return fmi2Error;
    INST->mode = VN_MODE_CONTINUOUS;
    return fmi2OK;
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c,
                                       fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode,
                                       fmi2Boolean *terminateSimulation)
{
    int enter = 0;
    (void)noSetFMUStatePriorToCurrentPoint;
    if (c == NULL || !is_kind(c, "fmi2CompletedIntegratorStep", VN_ME)) return fmi2Error;
    if (vn_check_mode(INST, "fmi2CompletedIntegratorStep", VN_M(VN_MODE_CONTINUOUS)))
        return fmi2Error;
    if (enterEventMode == NULL || terminateSimulation == NULL)
        return refuse(c, "fmi2CompletedIntegratorStep", "NULL out-argument");
    *enterEventMode = fmi2False;
    *terminateSimulation = fmi2False;
    if (vn_completed_step(INST, "fmi2CompletedIntegratorStep", &enter) != VN_OK)
        return fmi2Error;
    *enterEventMode = enter ? fmi2True : fmi2False;
    return fmi2OK;
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time)
{
    if (c == NULL || !is_kind(c, "fmi2SetTime", VN_ME)) return fmi2Error;
    if (vn_check_mode(INST, "fmi2SetTime",
                      VN_M(VN_MODE_INSTANTIATED) | VN_M(VN_MODE_INIT)
                          | VN_M(VN_MODE_EVENT) | VN_M(VN_MODE_CONTINUOUS)))
        return fmi2Error;
    INST->time = time;
    return fmi2OK;
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx)
{
    if (c == NULL || !is_kind(c, "fmi2SetContinuousStates", VN_ME)) return fmi2Error;
    if (vn_check_mode(INST, "fmi2SetContinuousStates",
                      VN_M(VN_MODE_INIT) | VN_M(VN_MODE_EVENT) | VN_M(VN_MODE_CONTINUOUS)))
        return fmi2Error;
    if (vn_check_array(INST, "fmi2SetContinuousStates", "x", x, nx, VN_NX))
        return fmi2Error;
    if (nx > 0) memcpy(INST->x, x, nx * sizeof(double));
    return fmi2OK;
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx)
{
    if (c == NULL || !is_kind(c, "fmi2GetDerivatives", VN_ME)) return fmi2Error;
    if (vn_check_array(INST, "fmi2GetDerivatives", "derivatives", derivatives, nx, VN_NX))
        return fmi2Error;
    if (nx == 0) return fmi2OK;
    if (vn_eval_derivatives(INST, "fmi2GetDerivatives", INST->dx) != VN_OK)
        return fmi2Error;
    memcpy(derivatives, INST->dx, nx * sizeof(double));
    return fmi2OK;
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[],
                                  size_t ni)
{
    if (c == NULL || !is_kind(c, "fmi2GetEventIndicators", VN_ME)) return fmi2Error;
    if (vn_check_array(INST, "fmi2GetEventIndicators", "eventIndicators",
                       eventIndicators, ni, VN_NZ))
        return fmi2Error;
    if (ni == 0) return fmi2OK;
    if (vn_eval_indicators(INST, "fmi2GetEventIndicators", INST->z) != VN_OK)
        return fmi2Error;
    memcpy(eventIndicators, INST->z, ni * sizeof(double));
    return fmi2OK;
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx)
{
    if (c == NULL || !is_kind(c, "fmi2GetContinuousStates", VN_ME)) return fmi2Error;
    if (vn_check_array(INST, "fmi2GetContinuousStates", "x", x, nx, VN_NX))
        return fmi2Error;
    if (nx > 0) memcpy(x, INST->x, nx * sizeof(double));
    return fmi2OK;
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[],
                                             size_t nx)
{
    size_t i;
    if (c == NULL || !is_kind(c, "fmi2GetNominalsOfContinuousStates", VN_ME))
        return fmi2Error;
    if (vn_check_array(INST, "fmi2GetNominalsOfContinuousStates", "x_nominal",
                       x_nominal, nx, VN_NX))
        return fmi2Error;
    for (i = 0; i < nx; i++) x_nominal[i] = 1.0;
    return fmi2OK;
}

/* ------------------------------------------------------------------------ */
/* Co-Simulation                                                            */

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                       size_t nvr, const fmi2Integer order[],
                                       const fmi2Real value[])
{
    (void)vr;
    (void)order;
    (void)value;
    if (c == NULL) return fmi2Error;
    if (nvr == 0) return fmi2OK;
    return refuse(c, "fmi2SetRealInputDerivatives", "input derivatives are not used");
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[],
                                        fmi2Real value[])
{
    (void)vr;
    (void)order;
    (void)value;
    if (c == NULL) return fmi2Error;
    if (nvr == 0) return fmi2OK;
    return refuse(c, "fmi2GetRealOutputDerivatives",
                  "output derivatives are not provided");
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    if (c == NULL || !is_kind(c, "fmi2DoStep", VN_CS)) return fmi2Error;
    if (vn_check_mode(INST, "fmi2DoStep", VN_M(VN_MODE_STEP))) return fmi2Error;
    return st(vn_do_step(INST, "fmi2DoStep", currentCommunicationPoint,
                         communicationStepSize));
}

fmi2Status fmi2CancelStep(fmi2Component c)
{
    if (c == NULL) return fmi2Error;
    return refuse(c, "fmi2CancelStep", "no step is pending (fmi2DoStep never returns "
                  "fmi2Pending)");
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
    (void)s;
    (void)value;
    if (c == NULL) return fmi2Error;
    return refuse(c, "fmi2GetStatus", "no step is pending (fmi2DoStep never returns "
                  "fmi2Pending)");
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
    if (c == NULL || !is_kind(c, "fmi2GetRealStatus", VN_CS)) return fmi2Error;
    if (value == NULL) return refuse(c, "fmi2GetRealStatus", "NULL value");
    if (s != fmi2LastSuccessfulTime)
        return refuse(c, "fmi2GetRealStatus", "only fmi2LastSuccessfulTime is provided");
    *value = INST->last_successful_time;
    return fmi2OK;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s,
                                fmi2Integer *value)
{
    (void)s;
    (void)value;
    if (c == NULL) return fmi2Error;
    return refuse(c, "fmi2GetIntegerStatus", "no integer status is provided");
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s,
                                fmi2Boolean *value)
{
    if (c == NULL || !is_kind(c, "fmi2GetBooleanStatus", VN_CS)) return fmi2Error;
    if (value == NULL) return refuse(c, "fmi2GetBooleanStatus", "NULL value");
    if (s != fmi2Terminated)
        return refuse(c, "fmi2GetBooleanStatus", "only fmi2Terminated is provided");
    *value = fmi2False;
    return fmi2OK;
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s,
                               fmi2String *value)
{
    (void)s;
    (void)value;
    if (c == NULL) return fmi2Error;
    return refuse(c, "fmi2GetStringStatus", "no string status is provided");
}
