/* vecnet FMU run-time: FMI 3.0, Model Exchange and Co-Simulation in one
 * binary (Scheduled Execution is refused). Float64 variables only; the value
 * references are those of runtime.h. */
#include <stdio.h>
#include <string.h>

#include "fmi3Functions.h"
#include "runtime.h"

#define INST ((vn_instance *)instance)

static void emit3(const vn_instance *inst, int status, const char *category,
                  const char *message)
{
    fmi3LogMessageCallback logger = (fmi3LogMessageCallback)inst->logger;
    logger(inst->env, (fmi3Status)status, category, message);
}

static fmi3Status st(int vn_status) { return vn_status == VN_OK ? fmi3OK : fmi3Error; }

static fmi3Status refuse(fmi3Instance instance, const char *fn, const char *why)
{
    vn_log(INST, VN_ERROR, "%s: %s", fn, why);
    return fmi3Error;
}

static int is_kind(fmi3Instance instance, const char *fn, int kind)
{
    if (INST->kind == kind) return 1;
    vn_log(INST, VN_ERROR, "%s is a %s function; the instance is %s", fn,
           kind == VN_ME ? "Model Exchange" : "Co-Simulation",
           INST->kind == VN_ME ? "Model Exchange" : "Co-Simulation");
    return 0;
}

static int scalar_counts(fmi3Instance instance, const char *fn, size_t nvr,
                         size_t nValues)
{
    if (nvr == nValues) return 1;
    vn_log(INST, VN_ERROR, "%s: %lu values for %lu scalar variables", fn,
           (unsigned long)nValues, (unsigned long)nvr);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* common functions                                                         */

const char *fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn,
                               size_t nCategories, const fmi3String categories[])
{
    if (instance == NULL) return fmi3Error;
    if (nCategories > 0 && categories == NULL)
        return refuse(instance, "fmi3SetDebugLogging", "NULL categories");
    INST->logging_on = loggingOn ? 1 : 0;
    return fmi3OK;
}

static vn_instance *instantiate(const char *fn, int kind, fmi3String instanceName,
                                fmi3String instantiationToken, fmi3Boolean loggingOn,
                                fmi3InstanceEnvironment instanceEnvironment,
                                fmi3LogMessageCallback logMessage)
{
    vn_instance *inst;
    const char *why = NULL;
    char message[512];
    if (instanceName == NULL || instanceName[0] == '\0')
        why = "missing instance name";
    else if (instantiationToken == NULL || strcmp(instantiationToken, VN_TOKEN) != 0)
        why = "the instantiation token is not this model's (" VN_TOKEN ")";
    if (why == NULL) {
        inst = vn_new(instanceName, kind, instanceEnvironment, (vn_any_fn)logMessage,
                      emit3, NULL, NULL);
        if (inst != NULL) {
            inst->logging_on = loggingOn ? 1 : 0;
            return inst;
        }
        why = "out of memory";
    }
    if (logMessage != NULL) {
        snprintf(message, sizeof message, "%s: %s", fn, why);
        logMessage(instanceEnvironment, fmi3Error, "logStatusError", message);
    }
    return NULL;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName,
                                          fmi3String instantiationToken,
                                          fmi3String resourcePath, fmi3Boolean visible,
                                          fmi3Boolean loggingOn,
                                          fmi3InstanceEnvironment instanceEnvironment,
                                          fmi3LogMessageCallback logMessage)
{
    (void)resourcePath;
    (void)visible;
    return instantiate("fmi3InstantiateModelExchange", VN_ME, instanceName,
                       instantiationToken, loggingOn, instanceEnvironment, logMessage);
}

fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
    fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
    size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback intermediateUpdate)
{
    vn_instance *inst;
    (void)resourcePath;
    (void)visible;
    (void)earlyReturnAllowed; /* never returns early */
    (void)requiredIntermediateVariables;
    (void)nRequiredIntermediateVariables;
    (void)intermediateUpdate;
    inst = instantiate("fmi3InstantiateCoSimulation", VN_CS, instanceName,
                       instantiationToken, loggingOn, instanceEnvironment, logMessage);
    if (inst != NULL) inst->event_mode_used = eventModeUsed ? 1 : 0;
    return inst;
}

fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
    fmi3LockPreemptionCallback lockPreemption, fmi3UnlockPreemptionCallback unlockPreemption)
{
    (void)instanceName;
    (void)instantiationToken;
    (void)resourcePath;
    (void)visible;
    (void)loggingOn;
    (void)clockUpdate;
    (void)lockPreemption;
    (void)unlockPreemption;
    if (logMessage != NULL)
        logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                   "fmi3InstantiateScheduledExecution: Scheduled Execution is not "
                   "supported");
    return NULL;
}

void fmi3FreeInstance(fmi3Instance instance) { vn_delete(INST); }

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                       fmi3Float64 tolerance, fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
    (void)toleranceDefined;
    (void)tolerance;
    if (instance == NULL) return fmi3Error;
    if (vn_check_mode(INST, "fmi3EnterInitializationMode", VN_M(VN_MODE_INSTANTIATED)))
        return fmi3Error;
    INST->time = startTime;
    INST->start_time = startTime;
    INST->last_successful_time = startTime;
    INST->stop_time_defined = stopTimeDefined ? 1 : 0;
    INST->stop_time = stopTime;
    INST->mode = VN_MODE_INIT;
    return fmi3OK;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance)
{
    if (instance == NULL) return fmi3Error;
    if (vn_check_mode(INST, "fmi3ExitInitializationMode", VN_M(VN_MODE_INIT)))
        return fmi3Error;
    return st(vn_exit_initialization(INST, "fmi3ExitInitializationMode"));
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance)
{
    if (instance == NULL) return fmi3Error;
    if (INST->kind == VN_ME) {
        if (vn_check_mode(INST, "fmi3EnterEventMode",
                          VN_M(VN_MODE_EVENT) | VN_M(VN_MODE_CONTINUOUS)))
            return fmi3Error;
    } else {
        if (!INST->event_mode_used)
            return refuse(instance, "fmi3EnterEventMode",
                          "the instance was instantiated with eventModeUsed = false");
        if (vn_check_mode(INST, "fmi3EnterEventMode",
                          VN_M(VN_MODE_EVENT) | VN_M(VN_MODE_STEP)))
            return fmi3Error;
    }
    INST->mode = VN_MODE_EVENT;
    return fmi3OK;
}

fmi3Status fmi3Terminate(fmi3Instance instance)
{
    if (instance == NULL) return fmi3Error;
    if (vn_check_mode(INST, "fmi3Terminate",
                      VN_M(VN_MODE_INIT) | VN_M(VN_MODE_EVENT)
                          | VN_M(VN_MODE_CONTINUOUS) | VN_M(VN_MODE_STEP)))
        return fmi3Error;
    INST->mode = VN_MODE_TERMINATED;
    return fmi3OK;
}

fmi3Status fmi3Reset(fmi3Instance instance)
{
    if (instance == NULL) return fmi3Error;
    vn_restart(INST);
    return fmi3OK;
}

/* ------------------------------------------------------------------------ */
/* getting and setting values                                               */

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, fmi3Float64 values[], size_t nValues)
{
    if (instance == NULL) return fmi3Error;
    if (!scalar_counts(instance, "fmi3GetFloat64", nValueReferences, nValues))
        return fmi3Error;
    return st(vn_get_float64(INST, "fmi3GetFloat64", valueReferences, nValueReferences,
                             values));
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, const fmi3Float64 values[],
                          size_t nValues)
{
    if (instance == NULL) return fmi3Error;
    if (!scalar_counts(instance, "fmi3SetFloat64", nValueReferences, nValues))
        return fmi3Error;
    return st(vn_set_float64(INST, "fmi3SetFloat64", valueReferences, nValueReferences,
                             values));
}

#define VN_NO_VARIABLES(fn, type, constness)                                       \
    fmi3Status fn(fmi3Instance instance, const fmi3ValueReference valueReferences[], \
                  size_t nValueReferences, constness type values[], size_t nValues)  \
    {                                                                                \
        (void)valueReferences;                                                       \
        (void)values;                                                                \
        (void)nValues;                                                               \
        if (instance == NULL) return fmi3Error;                                      \
        if (nValueReferences == 0) return fmi3OK;                                    \
        return refuse(instance, #fn, "the model has no variables of this type");     \
    }

VN_NO_VARIABLES(fmi3GetFloat32, fmi3Float32, )
VN_NO_VARIABLES(fmi3GetInt8, fmi3Int8, )
VN_NO_VARIABLES(fmi3GetUInt8, fmi3UInt8, )
VN_NO_VARIABLES(fmi3GetInt16, fmi3Int16, )
VN_NO_VARIABLES(fmi3GetUInt16, fmi3UInt16, )
VN_NO_VARIABLES(fmi3GetInt32, fmi3Int32, )
VN_NO_VARIABLES(fmi3GetUInt32, fmi3UInt32, )
VN_NO_VARIABLES(fmi3GetInt64, fmi3Int64, )
VN_NO_VARIABLES(fmi3GetUInt64, fmi3UInt64, )
VN_NO_VARIABLES(fmi3GetBoolean, fmi3Boolean, )
VN_NO_VARIABLES(fmi3GetString, fmi3String, )
VN_NO_VARIABLES(fmi3SetFloat32, fmi3Float32, const)
VN_NO_VARIABLES(fmi3SetInt8, fmi3Int8, const)
VN_NO_VARIABLES(fmi3SetUInt8, fmi3UInt8, const)
VN_NO_VARIABLES(fmi3SetInt16, fmi3Int16, const)
VN_NO_VARIABLES(fmi3SetUInt16, fmi3UInt16, const)
VN_NO_VARIABLES(fmi3SetInt32, fmi3Int32, const)
VN_NO_VARIABLES(fmi3SetUInt32, fmi3UInt32, const)
VN_NO_VARIABLES(fmi3SetInt64, fmi3Int64, const)
VN_NO_VARIABLES(fmi3SetUInt64, fmi3UInt64, const)
VN_NO_VARIABLES(fmi3SetBoolean, fmi3Boolean, const)
VN_NO_VARIABLES(fmi3SetString, fmi3String, const)

fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, size_t valueSizes[], fmi3Binary values[],
                         size_t nValues)
{
    (void)valueReferences;
    (void)valueSizes;
    (void)values;
    (void)nValues;
    if (instance == NULL) return fmi3Error;
    if (nValueReferences == 0) return fmi3OK;
    return refuse(instance, "fmi3GetBinary", "the model has no Binary variables");
}

fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, const size_t valueSizes[],
                         const fmi3Binary values[], size_t nValues)
{
    (void)valueReferences;
    (void)valueSizes;
    (void)values;
    (void)nValues;
    if (instance == NULL) return fmi3Error;
    if (nValueReferences == 0) return fmi3OK;
    return refuse(instance, "fmi3SetBinary", "the model has no Binary variables");
}

fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, fmi3Clock values[])
{
    (void)valueReferences;
    (void)values;
    if (instance == NULL) return fmi3Error;
    if (nValueReferences == 0) return fmi3OK;
    return refuse(instance, "fmi3GetClock", "the model has no clocks");
}

fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, const fmi3Clock values[])
{
    (void)valueReferences;
    (void)values;
    if (instance == NULL) return fmi3Error;
    if (nValueReferences == 0) return fmi3OK;
    return refuse(instance, "fmi3SetClock", "the model has no clocks");
}

/* ------------------------------------------------------------------------ */
/* variable dependencies                                                    */

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance,
                                               fmi3ValueReference valueReference,
                                               size_t *nDependencies)
{
    (void)valueReference;
    (void)nDependencies;
    if (instance == NULL) return fmi3Error;
    return refuse(instance, "fmi3GetNumberOfVariableDependencies",
                  "variable dependencies are given in modelDescription.xml only");
}

fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[],
                                       fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[],
                                       fmi3DependencyKind dependencyKinds[],
                                       size_t nDependencies)
{
    (void)dependent;
    (void)elementIndicesOfDependent;
    (void)independents;
    (void)elementIndicesOfIndependents;
    (void)dependencyKinds;
    (void)nDependencies;
    if (instance == NULL) return fmi3Error;
    return refuse(instance, "fmi3GetVariableDependencies",
                  "variable dependencies are given in modelDescription.xml only");
}

/* ------------------------------------------------------------------------ */
/* FMU state                                                                */

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    if (instance == NULL) return fmi3Error;
    return st(vn_get_state(INST, "fmi3GetFMUState", FMUState));
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState)
{
    if (instance == NULL) return fmi3Error;
    return st(vn_set_state(INST, "fmi3SetFMUState", FMUState));
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    if (instance == NULL) return fmi3Error;
    return st(vn_free_state(INST, "fmi3FreeFMUState", FMUState));
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState,
                                      size_t *size)
{
    (void)FMUState;
    if (instance == NULL) return fmi3Error;
    if (size == NULL) return refuse(instance, "fmi3SerializedFMUStateSize", "NULL size");
    *size = sizeof(vn_snapshot);
    return fmi3OK;
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState,
                                 fmi3Byte serializedState[], size_t size)
{
    if (instance == NULL) return fmi3Error;
    if (FMUState == NULL || ((vn_snapshot *)FMUState)->magic != VN_SNAPSHOT_MAGIC)
        return refuse(instance, "fmi3SerializeFMUState", "not an FMU state of this model");
    if (serializedState == NULL || size < sizeof(vn_snapshot))
        return refuse(instance, "fmi3SerializeFMUState", "the buffer is too small");
    memcpy(serializedState, FMUState, sizeof(vn_snapshot));
    return fmi3OK;
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[],
                                   size_t size, fmi3FMUState *FMUState)
{
    if (instance == NULL) return fmi3Error;
    return st(vn_deserialize_state(INST, "fmi3DeserializeFMUState", serializedState, size,
                                   FMUState));
}

/* ------------------------------------------------------------------------ */
/* partial derivatives                                                      */

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance,
                                        const fmi3ValueReference unknowns[], size_t nUnknowns,
                                        const fmi3ValueReference knowns[], size_t nKnowns,
                                        const fmi3Float64 seed[], size_t nSeed,
                                        fmi3Float64 sensitivity[], size_t nSensitivity)
{
    (void)unknowns;
    (void)nUnknowns;
    (void)knowns;
    (void)nKnowns;
    (void)seed;
    (void)nSeed;
    (void)sensitivity;
    (void)nSensitivity;
    if (instance == NULL) return fmi3Error;
    return refuse(instance, "fmi3GetDirectionalDerivative",
                  "directional derivatives are not provided");
}

fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance,
                                    const fmi3ValueReference unknowns[], size_t nUnknowns,
                                    const fmi3ValueReference knowns[], size_t nKnowns,
                                    const fmi3Float64 seed[], size_t nSeed,
                                    fmi3Float64 sensitivity[], size_t nSensitivity)
{
    (void)unknowns;
    (void)nUnknowns;
    (void)knowns;
    (void)nKnowns;
    (void)seed;
    (void)nSeed;
    (void)sensitivity;
    (void)nSensitivity;
    if (instance == NULL) return fmi3Error;
    return refuse(instance, "fmi3GetAdjointDerivative", "adjoint derivatives are not provided");
}

/* ------------------------------------------------------------------------ */
/* configuration mode and clocks                                            */

fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance)
{
    if (instance == NULL) return fmi3Error;
    return refuse(instance, "fmi3EnterConfigurationMode", "the model has no structural "
                  "parameters");
}

fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance)
{
    if (instance == NULL) return fmi3Error;
    return refuse(instance, "fmi3ExitConfigurationMode", "the model has no structural "
                  "parameters");
}

#define VN_NO_CLOCKS(fn, params, uses)                                                \
    fmi3Status fn params                                                              \
    {                                                                                 \
        uses;                                                                         \
        (void)valueReferences;                                                        \
        if (instance == NULL) return fmi3Error;                                       \
        if (nValueReferences == 0) return fmi3OK;                                     \
        return refuse(instance, #fn, "the model has no clocks");                      \
    }

VN_NO_CLOCKS(fmi3GetIntervalDecimal,
             (fmi3Instance instance, const fmi3ValueReference valueReferences[],
              size_t nValueReferences, fmi3Float64 intervals[],
              fmi3IntervalQualifier qualifiers[]),
             (void)intervals; (void)qualifiers)
VN_NO_CLOCKS(fmi3GetIntervalFraction,
             (fmi3Instance instance, const fmi3ValueReference valueReferences[],
              size_t nValueReferences, fmi3UInt64 counters[], fmi3UInt64 resolutions[],
              fmi3IntervalQualifier qualifiers[]),
             (void)counters; (void)resolutions; (void)qualifiers)
VN_NO_CLOCKS(fmi3GetShiftDecimal,
             (fmi3Instance instance, const fmi3ValueReference valueReferences[],
              size_t nValueReferences, fmi3Float64 shifts[]),
             (void)shifts)
VN_NO_CLOCKS(fmi3GetShiftFraction,
             (fmi3Instance instance, const fmi3ValueReference valueReferences[],
              size_t nValueReferences, fmi3UInt64 counters[], fmi3UInt64 resolutions[]),
             (void)counters; (void)resolutions)
VN_NO_CLOCKS(fmi3SetIntervalDecimal,
             (fmi3Instance instance, const fmi3ValueReference valueReferences[],
              size_t nValueReferences, const fmi3Float64 intervals[]),
             (void)intervals)
VN_NO_CLOCKS(fmi3SetIntervalFraction,
             (fmi3Instance instance, const fmi3ValueReference valueReferences[],
              size_t nValueReferences, const fmi3UInt64 counters[],
              const fmi3UInt64 resolutions[]),
             (void)counters; (void)resolutions)
VN_NO_CLOCKS(fmi3SetShiftDecimal,
             (fmi3Instance instance, const fmi3ValueReference valueReferences[],
              size_t nValueReferences, const fmi3Float64 shifts[]),
             (void)shifts)
VN_NO_CLOCKS(fmi3SetShiftFraction,
             (fmi3Instance instance, const fmi3ValueReference valueReferences[],
              size_t nValueReferences, const fmi3UInt64 counters[],
              const fmi3UInt64 resolutions[]),
             (void)counters; (void)resolutions)

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance)
{
    if (instance == NULL) return fmi3Error;
    return refuse(instance, "fmi3EvaluateDiscreteStates", "the model has no clocks");
}

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance,
                                    fmi3Boolean *discreteStatesNeedUpdate,
                                    fmi3Boolean *terminateSimulation,
                                    fmi3Boolean *nominalsOfContinuousStatesChanged,
                                    fmi3Boolean *valuesOfContinuousStatesChanged,
                                    fmi3Boolean *nextEventTimeDefined,
                                    fmi3Float64 *nextEventTime)
{
    int changed = 0;
    if (instance == NULL) return fmi3Error;
    if (vn_check_mode(INST, "fmi3UpdateDiscreteStates", VN_M(VN_MODE_EVENT)))
        return fmi3Error;
    if (discreteStatesNeedUpdate != NULL) *discreteStatesNeedUpdate = fmi3False;
    if (terminateSimulation != NULL) *terminateSimulation = fmi3False;
    if (nominalsOfContinuousStatesChanged != NULL)
        *nominalsOfContinuousStatesChanged = fmi3False;
    if (valuesOfContinuousStatesChanged != NULL) *valuesOfContinuousStatesChanged = fmi3False;
    if (nextEventTimeDefined != NULL) *nextEventTimeDefined = fmi3False;
    if (nextEventTime != NULL) *nextEventTime = 0.0;
    if (vn_event_update(INST, "fmi3UpdateDiscreteStates", &changed) != VN_OK)
        return fmi3Error;
    if (valuesOfContinuousStatesChanged != NULL)
        *valuesOfContinuousStatesChanged = changed ? fmi3True : fmi3False;
    return fmi3OK;
}

/* ------------------------------------------------------------------------ */
/* Model Exchange                                                           */

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance)
{
    if (instance == NULL || !is_kind(instance, "fmi3EnterContinuousTimeMode", VN_ME))
        return fmi3Error;
    if (vn_check_mode(INST, "fmi3EnterContinuousTimeMode", VN_M(VN_MODE_EVENT)))
        return fmi3Error;
    INST->mode = VN_MODE_CONTINUOUS;
    return fmi3OK;
}

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance,
                                       fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean *enterEventMode,
                                       fmi3Boolean *terminateSimulation)
{
    int enter = 0;
    (void)noSetFMUStatePriorToCurrentPoint;
    if (instance == NULL || !is_kind(instance, "fmi3CompletedIntegratorStep", VN_ME))
        return fmi3Error;
    if (vn_check_mode(INST, "fmi3CompletedIntegratorStep", VN_M(VN_MODE_CONTINUOUS)))
        return fmi3Error;
    if (enterEventMode == NULL || terminateSimulation == NULL)
        return refuse(instance, "fmi3CompletedIntegratorStep", "NULL out-argument");
    *enterEventMode = fmi3False;
    *terminateSimulation = fmi3False;
    if (vn_completed_step(INST, "fmi3CompletedIntegratorStep", &enter) != VN_OK)
        return fmi3Error;
    *enterEventMode = enter ? fmi3True : fmi3False;
    return fmi3OK;
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time)
{
    if (instance == NULL || !is_kind(instance, "fmi3SetTime", VN_ME)) return fmi3Error;
    if (vn_check_mode(INST, "fmi3SetTime",
                      VN_M(VN_MODE_INIT) | VN_M(VN_MODE_EVENT) | VN_M(VN_MODE_CONTINUOUS)))
        return fmi3Error;
    INST->time = time;
    return fmi3OK;
}

fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                   size_t nContinuousStates)
{
    if (instance == NULL || !is_kind(instance, "fmi3SetContinuousStates", VN_ME))
        return fmi3Error;
    if (vn_check_mode(INST, "fmi3SetContinuousStates",
                      VN_M(VN_MODE_INIT) | VN_M(VN_MODE_EVENT) | VN_M(VN_MODE_CONTINUOUS)))
        return fmi3Error;
    if (vn_check_array(INST, "fmi3SetContinuousStates", "continuousStates",
                       continuousStates, nContinuousStates, VN_NX))
        return fmi3Error;
    if (nContinuousStates > 0)
        memcpy(INST->x, continuousStates, nContinuousStates * sizeof(double));
    return fmi3OK;
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                             size_t nContinuousStates)
{
    if (instance == NULL || !is_kind(instance, "fmi3GetContinuousStateDerivatives", VN_ME))
        return fmi3Error;
    if (vn_check_array(INST, "fmi3GetContinuousStateDerivatives", "derivatives",
                       derivatives, nContinuousStates, VN_NX))
        return fmi3Error;
    if (nContinuousStates == 0) return fmi3OK;
    if (vn_eval_derivatives(INST, "fmi3GetContinuousStateDerivatives", INST->dx) != VN_OK)
        return fmi3Error;
    memcpy(derivatives, INST->dx, nContinuousStates * sizeof(double));
    return fmi3OK;
}

fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[],
                                  size_t nEventIndicators)
{
    if (instance == NULL || !is_kind(instance, "fmi3GetEventIndicators", VN_ME))
        return fmi3Error;
    if (vn_check_array(INST, "fmi3GetEventIndicators", "eventIndicators", eventIndicators,
                       nEventIndicators, VN_NZ))
        return fmi3Error;
    if (nEventIndicators == 0) return fmi3OK;
    if (vn_eval_indicators(INST, "fmi3GetEventIndicators", INST->z) != VN_OK)
        return fmi3Error;
    memcpy(eventIndicators, INST->z, nEventIndicators * sizeof(double));
    return fmi3OK;
}

fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[],
                                   size_t nContinuousStates)
{
    if (instance == NULL || !is_kind(instance, "fmi3GetContinuousStates", VN_ME))
        return fmi3Error;
    if (vn_check_array(INST, "fmi3GetContinuousStates", "continuousStates",
                       continuousStates, nContinuousStates, VN_NX))
        return fmi3Error;
    if (nContinuousStates > 0)
        memcpy(continuousStates, INST->x, nContinuousStates * sizeof(double));
    return fmi3OK;
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                             size_t nContinuousStates)
{
    size_t i;
    if (instance == NULL || !is_kind(instance, "fmi3GetNominalsOfContinuousStates", VN_ME))
        return fmi3Error;
    if (vn_check_array(INST, "fmi3GetNominalsOfContinuousStates", "nominals", nominals,
                       nContinuousStates, VN_NX))
        return fmi3Error;
    for (i = 0; i < nContinuousStates; i++) nominals[i] = 1.0;
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators)
{
    if (instance == NULL) return fmi3Error;
    if (nEventIndicators == NULL)
        return refuse(instance, "fmi3GetNumberOfEventIndicators", "NULL argument");
    *nEventIndicators = (size_t)VN_NZ;
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates)
{
    if (instance == NULL) return fmi3Error;
    if (nContinuousStates == NULL)
        return refuse(instance, "fmi3GetNumberOfContinuousStates", "NULL argument");
    *nContinuousStates = (size_t)VN_NX;
    return fmi3OK;
}

/* ------------------------------------------------------------------------ */
/* Co-Simulation                                                            */

fmi3Status fmi3EnterStepMode(fmi3Instance instance)
{
    if (instance == NULL || !is_kind(instance, "fmi3EnterStepMode", VN_CS)) return fmi3Error;
    if (vn_check_mode(INST, "fmi3EnterStepMode", VN_M(VN_MODE_EVENT) | VN_M(VN_MODE_STEP)))
        return fmi3Error;
    INST->mode = VN_MODE_STEP;
    return fmi3OK;
}

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance,
                                    const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Int32 orders[],
                                    fmi3Float64 values[], size_t nValues)
{
    (void)valueReferences;
    (void)orders;
    (void)values;
    (void)nValues;
    if (instance == NULL) return fmi3Error;
    if (nValueReferences == 0) return fmi3OK;
    return refuse(instance, "fmi3GetOutputDerivatives", "output derivatives are not provided");
}

fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                      fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                      fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                      fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime)
{
    int status;
    (void)noSetFMUStatePriorToCurrentPoint;
    if (instance == NULL || !is_kind(instance, "fmi3DoStep", VN_CS)) return fmi3Error;
    if (eventHandlingNeeded != NULL) *eventHandlingNeeded = fmi3False;
    if (terminateSimulation != NULL) *terminateSimulation = fmi3False;
    if (earlyReturn != NULL) *earlyReturn = fmi3False;
    if (lastSuccessfulTime != NULL) *lastSuccessfulTime = INST->last_successful_time;
    if (vn_check_mode(INST, "fmi3DoStep", VN_M(VN_MODE_STEP))) return fmi3Error;
    status = vn_do_step(INST, "fmi3DoStep", currentCommunicationPoint, communicationStepSize);
    if (lastSuccessfulTime != NULL) *lastSuccessfulTime = INST->last_successful_time;
    return st(status);
}

/* ------------------------------------------------------------------------ */
/* Scheduled Execution                                                      */

fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime)
{
    (void)clockReference;
    (void)activationTime;
    if (instance == NULL) return fmi3Error;
    return refuse(instance, "fmi3ActivateModelPartition",
                  "Scheduled Execution is not supported");
}
