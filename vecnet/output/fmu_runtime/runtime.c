/* vecnet FMU run-time: the part FMI 2.0 and FMI 3.0 share (see runtime.h). */
#include "runtime.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VN_CATEGORY_ERROR "logStatusError"
#define VN_CATEGORY_EVENTS "logEvents"

/* ------------------------------------------------------------------------ */
/* allocation                                                               */

static void *vn_calloc(size_t n, size_t size) { return calloc(n, size); }

static void vn_copy_start(vn_instance *inst)
{
    int i;
    for (i = 0; i < VN_NX; i++) inst->x[i] = vn_x_start[i];
    for (i = 0; i < VN_NP; i++) inst->p[i] = vn_p_start[i];
    for (i = 0; i < VN_NU; i++) inst->u[i] = vn_u_start[i];
    memset(inst->w, 0, sizeof inst->w);
    memset(inst->dx, 0, sizeof inst->dx);
    memset(inst->y, 0, sizeof inst->y);
    memset(inst->z, 0, sizeof inst->z);
}

void vn_restart(vn_instance *inst)
{
    vn_copy_start(inst);
    inst->time = 0.0;
    inst->start_time = 0.0;
    inst->stop_time_defined = 0;
    inst->stop_time = 0.0;
    inst->last_successful_time = 0.0;
    inst->h_next = 0.0;
    inst->err_old = 1e-4;
    inst->mode = VN_MODE_INSTANTIATED;
}

vn_instance *vn_new(const char *name, int kind, void *env, vn_any_fn logger,
                    vn_emit_fn emit, void *(*alloc)(size_t, size_t),
                    void (*dealloc)(void *))
{
    vn_instance *inst;
    size_t len;
    if (alloc == NULL || dealloc == NULL) {
        alloc = vn_calloc;
        dealloc = free;
    }
    inst = (vn_instance *)alloc(1, sizeof *inst);
    if (inst == NULL) return NULL;
    memset(inst, 0, sizeof *inst);
    if (name == NULL) name = "";
    len = strlen(name);
    inst->name = (char *)alloc(len + 1, 1);
    if (inst->name == NULL) {
        dealloc(inst);
        return NULL;
    }
    memcpy(inst->name, name, len + 1);
    inst->kind = kind;
    inst->env = env;
    inst->logger = logger;
    inst->emit = emit;
    inst->alloc = alloc;
    inst->dealloc = dealloc;
    vn_restart(inst);
    return inst;
}

void vn_delete(vn_instance *inst)
{
    void (*dealloc)(void *);
    if (inst == NULL) return;
    dealloc = inst->dealloc;
    if (inst->name != NULL) dealloc(inst->name);
    dealloc(inst);
}

/* ------------------------------------------------------------------------ */
/* logging                                                                  */

void vn_log(const vn_instance *inst, int status, const char *fmt, ...)
{
    char message[1024];
    va_list args;
    if (inst == NULL || inst->emit == NULL || inst->logger == NULL) return;
    if (status < VN_ERROR && !inst->logging_on) return;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    inst->emit(inst, status,
               status >= VN_ERROR ? VN_CATEGORY_ERROR : VN_CATEGORY_EVENTS,
               message);
}

int vn_model_error(const vn_instance *inst, const char *where, int code)
{
    const char *message;
    if (code == 0) return VN_OK;
    message = vn_message(code);
    if (message == NULL) message = "(no message)";
    vn_log(inst, VN_ERROR, "%s: %s (model code %d, t = %.17g)", where, message,
           code, inst->time);
    return VN_ERROR;
}

const char *vn_mode_name(vn_mode mode)
{
    switch (mode) {
    case VN_MODE_INSTANTIATED: return "instantiated mode";
    case VN_MODE_INIT: return "initialization mode";
    case VN_MODE_EVENT: return "event mode";
    case VN_MODE_CONTINUOUS: return "continuous-time mode";
    case VN_MODE_STEP: return "step mode";
    case VN_MODE_TERMINATED: return "terminated";
    }
    return "an unknown mode";
}

int vn_check_mode(const vn_instance *inst, const char *fn, unsigned mask)
{
    if (mask & VN_M(inst->mode)) return VN_OK;
    vn_log(inst, VN_ERROR, "%s may not be called in %s", fn,
           vn_mode_name(inst->mode));
    return VN_ERROR;
}

int vn_check_array(const vn_instance *inst, const char *fn, const char *what,
                   const void *array, size_t n, size_t expected)
{
    if (n != expected) {
        vn_log(inst, VN_ERROR, "%s: %s has %lu elements, the model %lu", fn,
               what, (unsigned long)n, (unsigned long)expected);
        return VN_ERROR;
    }
    if (n > 0 && array == NULL) {
        vn_log(inst, VN_ERROR, "%s: %s is NULL", fn, what);
        return VN_ERROR;
    }
    return VN_OK;
}

/* ------------------------------------------------------------------------ */
/* model evaluations                                                        */

int vn_eval_derivatives(vn_instance *inst, const char *fn, double *dx)
{
    int code = vn_derivatives(inst->time, inst->x, inst->p, inst->u, inst->w, dx);
    return vn_model_error(inst, fn, code);
}

int vn_eval_indicators(vn_instance *inst, const char *fn, double *z)
{
    int code = vn_indicators(inst->time, inst->x, inst->p, inst->u, inst->w, z);
    return vn_model_error(inst, fn, code);
}

static int vn_eval_outputs(vn_instance *inst, const char *fn)
{
    int code = vn_outputs(inst->time, inst->x, inst->p, inst->u, inst->w, inst->y);
    return vn_model_error(inst, fn, code);
}

/* ------------------------------------------------------------------------ */
/* getters and setters                                                      */

/* the groups of value references; a table rather than comparisons with the
   constants, which are always true or false when a group is empty */
enum { VN_G_X, VN_G_DX, VN_G_P, VN_G_U, VN_G_Y, VN_G_TIME, VN_G_NONE };
static const unsigned vn_group_start[VN_G_NONE + 1] = {
    VN_VR_X, VN_VR_DX, VN_VR_P, VN_VR_U, VN_VR_Y, VN_VR_TIME, VN_VR_TIME + 1u};

/* the group of value reference r, and its index within the group */
static int vn_group(unsigned r, unsigned *index)
{
    int g = VN_G_NONE;
    while (g > 0 && r < vn_group_start[g]) g--;
    if (r >= vn_group_start[VN_G_NONE]) g = VN_G_NONE;
    *index = r - vn_group_start[g];
    return g;
}

int vn_get_float64(vn_instance *inst, const char *fn, const unsigned *vr,
                   size_t nvr, double *value)
{
    size_t i;
    unsigned j;
    int need_dx = 0, need_y = 0;
    if (nvr == 0) return VN_OK;
    if (vr == NULL || value == NULL) {
        vn_log(inst, VN_ERROR, "%s: NULL value references or values", fn);
        return VN_ERROR;
    }
    for (i = 0; i < nvr; i++) {
        int g = vn_group(vr[i], &j);
        if (g == VN_G_NONE) {
            vn_log(inst, VN_ERROR, "%s: no Float64 variable has value reference %u",
                   fn, vr[i]);
            return VN_ERROR;
        }
        if (g == VN_G_DX) need_dx = 1;
        if (g == VN_G_Y) need_y = 1;
    }
    if (need_dx && vn_eval_derivatives(inst, fn, inst->dx) != VN_OK) return VN_ERROR;
    if (need_y && vn_eval_outputs(inst, fn) != VN_OK) return VN_ERROR;
    for (i = 0; i < nvr; i++) {
        switch (vn_group(vr[i], &j)) {
        case VN_G_X: value[i] = inst->x[j]; break;
        case VN_G_DX: value[i] = inst->dx[j]; break;
        case VN_G_P: value[i] = inst->p[j]; break;
        case VN_G_U: value[i] = inst->u[j]; break;
        case VN_G_Y: value[i] = inst->y[j]; break;
        default: value[i] = inst->time; break;
        }
    }
    return VN_OK;
}

int vn_set_float64(vn_instance *inst, const char *fn, const unsigned *vr,
                   size_t nvr, const double *value)
{
    static const char *const what[VN_G_NONE] = {
        "a continuous state", "a state derivative", "a parameter", "an input",
        "an output", "the time"};
    const unsigned allowed[VN_G_NONE] = {
        /* states: start values */
        VN_M(VN_MODE_INSTANTIATED) | VN_M(VN_MODE_INIT),
        0u,
        /* parameters: tunable */
        VN_M(VN_MODE_INSTANTIATED) | VN_M(VN_MODE_INIT) | VN_M(VN_MODE_EVENT)
            | VN_M(VN_MODE_STEP),
        /* inputs: any time */
        VN_M_ANY & ~VN_M(VN_MODE_TERMINATED),
        0u,
        0u};
    size_t i;
    unsigned j;
    if (nvr == 0) return VN_OK;
    if (vr == NULL || value == NULL) {
        vn_log(inst, VN_ERROR, "%s: NULL value references or values", fn);
        return VN_ERROR;
    }
    /* check everything first, so that a refused call changes nothing */
    for (i = 0; i < nvr; i++) {
        int g = vn_group(vr[i], &j);
        if (g == VN_G_NONE) {
            vn_log(inst, VN_ERROR, "%s: no Float64 variable has value reference %u",
                   fn, vr[i]);
            return VN_ERROR;
        }
        if (!(allowed[g] & VN_M(inst->mode))) {
            vn_log(inst, VN_ERROR, "%s: value reference %u is %s, which may not be "
                   "set in %s", fn, vr[i], what[g], vn_mode_name(inst->mode));
            return VN_ERROR;
        }
    }
    for (i = 0; i < nvr; i++) {
        switch (vn_group(vr[i], &j)) {
        case VN_G_X: inst->x[j] = value[i]; break;
        case VN_G_P: inst->p[j] = value[i]; break;
        case VN_G_U: inst->u[j] = value[i]; break;
        default: break;
        }
    }
    return VN_OK;
}

/* ------------------------------------------------------------------------ */
/* initialization, Model Exchange steps and events                          */

int vn_exit_initialization(vn_instance *inst, const char *fn)
{
    int code = vn_initialize(inst->time, inst->x, inst->p, inst->u, inst->w);
    if (vn_model_error(inst, fn, code) != VN_OK) return VN_ERROR;
    inst->last_successful_time = inst->time;
    inst->h_next = 0.0;
    inst->err_old = 1e-4;
    if (inst->kind == VN_ME || inst->event_mode_used) inst->mode = VN_MODE_EVENT;
    else inst->mode = VN_MODE_STEP;
    return VN_OK;
}

int vn_completed_step(vn_instance *inst, const char *fn, int *enter_event)
{
    int r;
    *enter_event = 0;
    memcpy(inst->xproj, inst->x, sizeof inst->xproj);
    r = vn_project(inst->time, inst->xproj, inst->p, inst->u, inst->w);
    if (r < 0) {
        vn_model_error(inst, fn, r);
        return VN_ERROR;
    }
    if (r > 0) {
        *enter_event = 1;
        vn_log(inst, VN_OK, "%s: the states left their constraints at t = %.17g",
               fn, inst->time);
    }
    return VN_OK;
}

int vn_event_update(vn_instance *inst, const char *fn, int *x_changed)
{
    int changed = 0, r;
    int code = vn_update(inst->time, inst->x, inst->p, inst->u, inst->w, &changed);
    *x_changed = 0;
    if (vn_model_error(inst, fn, code) != VN_OK) return VN_ERROR;
    r = vn_project(inst->time, inst->x, inst->p, inst->u, inst->w);
    if (r < 0) {
        vn_model_error(inst, fn, r);
        return VN_ERROR;
    }
    *x_changed = (changed != 0) || (r > 0);
    if (*x_changed)
        vn_log(inst, VN_OK, "%s: the states changed at t = %.17g", fn, inst->time);
    return VN_OK;
}

/* ------------------------------------------------------------------------ */
/* Co-Simulation: Dormand-Prince 5(4), PI step-size control                  */

/* Butcher tableau */
static const double DP_C[7] = {0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0};
static const double DP_A[7][6] = {
    {0, 0, 0, 0, 0, 0},
    {1.0 / 5.0, 0, 0, 0, 0, 0},
    {3.0 / 40.0, 9.0 / 40.0, 0, 0, 0, 0},
    {44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0, 0, 0},
    {19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0, 0, 0},
    {9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0, 0},
    {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0}};
/* the 5th-order weights minus the embedded 4th-order weights */
static const double DP_E[7] = {71.0 / 57600.0, 0.0, -71.0 / 16695.0, 71.0 / 1920.0,
                               -17253.0 / 339200.0, 22.0 / 525.0, -1.0 / 40.0};

#define DP_SAFE 0.9
#define DP_FAC_MIN 0.2   /* smallest ratio new step / step */
#define DP_FAC_MAX 10.0  /* largest ratio */
#define DP_BETA 0.04     /* PI control (Hairer & Wanner's DOPRI5) */
#define DP_ALPHA (0.2 - 0.75 * DP_BETA)

static double vn_min_step(double t) { return VN_CS_MIN_STEP_REL * (fabs(t) > 1.0 ? fabs(t) : 1.0); }

/* the RMS norm of v scaled by atol + rtol max(|a|, |b|) */
static double vn_norm(const double *v, const double *a, const double *b)
{
    double s = 0.0;
    int i;
    for (i = 0; i < VN_NX; i++) {
        double m = fabs(a[i]);
        double sc, q;
        if (fabs(b[i]) > m) m = fabs(b[i]);
        sc = VN_CS_ATOL + VN_CS_RTOL * m;
        q = v[i] / sc;
        s += q * q;
    }
    return VN_NX > 0 ? sqrt(s / VN_NX) : 0.0;
}

/* Hairer's initial step: k[0] holds f(t, x) */
static int vn_initial_step(vn_instance *inst, double t, double hmax, double *h_out,
                           int *code)
{
    double d0, d1, d2, h0, h1, h;
    int i;
    d0 = vn_norm(inst->x, inst->x, inst->x);
    d1 = vn_norm(inst->k[0], inst->x, inst->x);
    if (d0 < 1e-5 || d1 < 1e-5) h0 = 1e-6;
    else h0 = 0.01 * d0 / d1;
    if (h0 > hmax) h0 = hmax;
    for (i = 0; i < VN_NX; i++) inst->xs[i] = inst->x[i] + h0 * inst->k[0][i];
    *code = vn_derivatives(t + h0, inst->xs, inst->p, inst->u, inst->w, inst->k[1]);
    if (*code != 0) {
        *h_out = h0;
        return 0;
    }
    for (i = 0; i < VN_NX; i++) inst->xerr[i] = inst->k[1][i] - inst->k[0][i];
    d2 = vn_norm(inst->xerr, inst->x, inst->x) / h0;
    if (d1 > d2) d2 = d1;
    if (!(d2 > 1e-15)) h1 = (h0 * 1e-3 > 1e-6 ? h0 * 1e-3 : 1e-6);
    else h1 = pow(0.01 / d2, 0.2);
    h = 100.0 * h0;
    if (h1 < h) h = h1;
    if (hmax < h) h = hmax;
    *h_out = h;
    return 1;
}

/* one trial step of size h from (t, x): fills xnew and xerr; returns the
   model's code (0: fine) */
static int vn_dp_trial(vn_instance *inst, double t, double h)
{
    int s, j, i, code;
    for (s = 1; s < 7; s++) {
        for (i = 0; i < VN_NX; i++) {
            double acc = 0.0;
            for (j = 0; j < s; j++) acc += DP_A[s][j] * inst->k[j][i];
            inst->xs[i] = inst->x[i] + h * acc;
        }
        if (s == 6) memcpy(inst->xnew, inst->xs, sizeof inst->xnew);
        code = vn_derivatives(s == 6 ? t + h : t + DP_C[s] * h, inst->xs, inst->p,
                              inst->u, inst->w, inst->k[s]);
        if (code != 0) return code;
    }
    for (i = 0; i < VN_NX; i++) {
        double acc = 0.0;
        for (j = 0; j < 7; j++) acc += DP_E[j] * inst->k[j][i];
        inst->xerr[i] = h * acc;
    }
    return 0;
}

/* whether an indicator positive at the step's start (zo) is not positive at the end of
   the trial step in xnew (its mode ended there); z gets the indicators there */
static int vn_crossed(vn_instance *inst, double t1, const double *zo, double *z, int *code)
{
    int i;
    *code = vn_indicators(t1, inst->xnew, inst->p, inst->u, inst->w, z);
    if (*code != 0) return 0;
    for (i = 0; i < VN_NZ; i++)
        if (zo[i] > 0.0 && !(z[i] > 0.0)) return 1;
    return 0;
}

/* the state event inside an accepted step of size h from (t, x), if any: bisection on
   the step's length, each trial a fresh Dormand-Prince step from (t, x) (as accurate as
   the accepted one), down to VN_CS_EVENT_TOL; returns 1 and leaves in xnew the state
   just past the event, its step in *h_event, or 0 and xnew as it was */
static int vn_locate(vn_instance *inst, double t, double h, const double *zo, double *z,
                     double *h_event, int *code)
{
    double lo = 0.0, hi = h;
    const double tol = VN_CS_EVENT_TOL * (fabs(t) > 1.0 ? fabs(t) : 1.0);
    *code = 0;
    if (!vn_crossed(inst, t + h, zo, z, code)) return 0;
    while (hi - lo > tol) {
        double mid = 0.5 * (lo + hi);
        if ((*code = vn_dp_trial(inst, t, mid)) != 0) return 0;
        if (vn_crossed(inst, t + mid, zo, z, code)) hi = mid;
        else if (*code != 0) return 0;
        else lo = mid;
    }
    if ((*code = vn_dp_trial(inst, t, hi)) != 0) return 0;
    *h_event = hi;
    return 1;
}

int vn_do_step(vn_instance *inst, const char *fn, double t0, double H)
{
    double t, t_end, h, hmin, err, fac;
    double zo[VN_LEN(VN_NZ)], z[VN_LEN(VN_NZ)];
    long steps = 0;
    int code, last_rejected = 0, need_k0 = 1, last_code = 0, r = 0, event = 0;

    if (!(H >= 0.0) || !isfinite(t0) || !isfinite(H)) {
        vn_log(inst, VN_ERROR, "%s: communication step size %.17g from t = %.17g "
               "is not a finite number >= 0", fn, H, t0);
        return VN_ERROR;
    }
    if (fabs(t0 - inst->time) > 1e-9 * (fabs(t0) > 1.0 ? fabs(t0) : 1.0)) {
        vn_log(inst, VN_ERROR, "%s: the communication point %.17g is not the "
               "instance's time %.17g", fn, t0, inst->time);
        return VN_ERROR;
    }
    t = t0;
    t_end = t0 + H;
    inst->time = t;
    if (H == 0.0) {
        inst->last_successful_time = t;
        return VN_OK;
    }
    if (VN_NX == 0) {
        inst->time = t_end;
        inst->last_successful_time = t_end;
        return VN_OK;
    }

    h = inst->h_next;
    while (t < t_end) {
        double remaining = t_end - t;
        int last;
        if (need_k0) {
            code = vn_derivatives(t, inst->x, inst->p, inst->u, inst->w, inst->k[0]);
            if (code != 0) {
                inst->time = t;
                inst->last_successful_time = t;
                return vn_model_error(inst, fn, code);
            }
            need_k0 = 0;
            /* the indicators where a step starts: an event ends a mode positive here */
            if (VN_NZ > 0 && (code = vn_indicators(t, inst->x, inst->p, inst->u, inst->w,
                                                   zo)) != 0) {
                inst->time = t;
                inst->last_successful_time = t;
                return vn_model_error(inst, fn, code);
            }
        }
        if (!(h > 0.0)) {
            if (!vn_initial_step(inst, t, remaining, &h, &code)) {
                last_code = code;
                h *= 0.25;
            }
        }
        hmin = vn_min_step(t);
        /* the last step ends at t_end exactly; stretch a step by up to 1 %
           rather than leave a sliver */
        last = (t + 1.01 * h >= t_end);
        if (last) h = remaining;
        if (++steps > VN_CS_MAX_STEPS) {
            inst->time = t;
            inst->last_successful_time = t;
            vn_log(inst, VN_ERROR, "%s: more than %ld integrator steps from t = %.17g "
                   "to %.17g (reached t = %.17g, step %.3g)", fn, VN_CS_MAX_STEPS,
                   t0, t_end, t, h);
            return VN_ERROR;
        }

        r = 0;
        code = vn_dp_trial(inst, t, h);
        if (code == 0) {
            err = vn_norm(inst->xerr, inst->x, inst->xnew);
            if (!isfinite(err)) err = 1e10;
        } else {
            last_code = code;
            err = -1.0; /* the model refused a stage: shrink */
        }
        event = 0;
        if (VN_NZ > 0 && err >= 0.0 && err <= 1.0) {
            double h_event = h;
            event = vn_locate(inst, t, h, zo, z, &h_event, &code);
            if (code != 0) {
                last_code = code;
                err = -1.0; /* the model refused a stage on the way: shrink */
            } else if (event) {
                inst->h_next = h;     /* the step the controller chose, after the event */
                h = h_event;
                last = 0;
            }
        }
        if (err >= 0.0 && err <= 1.0) {
            /* accepted: pull the states back onto their constraints */
            memcpy(inst->xproj, inst->xnew, sizeof inst->xproj);
            r = vn_project(last ? t_end : t + h, inst->xproj, inst->p, inst->u,
                           inst->w);
            if (r < 0) {
                last_code = r;
                err = -1.0; /* projection failed: a smaller step may do */
            }
        }
        if (err >= 0.0 && err <= 1.0) {
            double fac11 = err > 0.0 ? pow(err, DP_ALPHA) : 0.0;
            memcpy(inst->x, inst->xproj, sizeof inst->x);
            t = last ? t_end : t + h;
            inst->time = t;
            inst->last_successful_time = t;
            if (event) {
                /* the strike or mode change, then a fresh start from the new state */
                int changed = 0;
                if (vn_event_update(inst, fn, &changed) != VN_OK) return VN_ERROR;
                need_k0 = 1;
                h = inst->h_next;
                last_rejected = 0;
                continue;
            }
            if (r > 0) need_k0 = 1;
            else memcpy(inst->k[0], inst->k[6], sizeof inst->k[0]);
            if (VN_NZ > 0 && !need_k0 &&
                (code = vn_indicators(t, inst->x, inst->p, inst->u, inst->w, zo)) != 0)
                return vn_model_error(inst, fn, code);
            /* PI control */
            fac = fac11 / pow(inst->err_old, DP_BETA) / DP_SAFE;
            if (fac < 1.0 / DP_FAC_MAX) fac = 1.0 / DP_FAC_MAX;
            if (fac > 1.0 / DP_FAC_MIN) fac = 1.0 / DP_FAC_MIN;
            inst->err_old = err > 1e-4 ? err : 1e-4;
            {
                double hnew = h / fac;
                if (last_rejected && hnew > h) hnew = h;
                /* a shortened last step says nothing about the next one */
                if (!(last && hnew < inst->h_next)) inst->h_next = hnew;
                h = hnew;
            }
            last_rejected = 0;
        } else {
            if (err < 0.0) {
                h *= 0.25;
            } else {
                double fac11 = pow(err, DP_ALPHA);
                fac = fac11 / DP_SAFE;
                if (fac > 1.0 / DP_FAC_MIN) fac = 1.0 / DP_FAC_MIN;
                h /= fac;
            }
            last_rejected = 1;
            if (h < hmin) {
                inst->time = t;
                inst->last_successful_time = t;
                if (last_code != 0) {
                    const char *m = vn_message(last_code);
                    vn_log(inst, VN_ERROR, "%s: step size %.3g below the minimum %.3g at "
                           "t = %.17g; the model: %s (code %d)", fn, h, hmin, t,
                           m ? m : "(no message)", last_code);
                } else {
                    vn_log(inst, VN_ERROR, "%s: step size %.3g below the minimum %.3g at "
                           "t = %.17g (error estimate %.3g)", fn, h, hmin, t, err);
                }
                return VN_ERROR;
            }
        }
    }
    inst->time = t_end;
    inst->last_successful_time = t_end;
    return VN_OK;
}

/* ------------------------------------------------------------------------ */
/* FMU state                                                                */

int vn_get_state(vn_instance *inst, const char *fn, void **state)
{
    vn_snapshot *s;
    if (state == NULL) {
        vn_log(inst, VN_ERROR, "%s: NULL FMU state pointer", fn);
        return VN_ERROR;
    }
    s = (vn_snapshot *)*state;
    if (s == NULL) {
        s = (vn_snapshot *)inst->alloc(1, sizeof *s);
        if (s == NULL) {
            vn_log(inst, VN_ERROR, "%s: out of memory", fn);
            return VN_ERROR;
        }
    } else if (s->magic != VN_SNAPSHOT_MAGIC) {
        vn_log(inst, VN_ERROR, "%s: not an FMU state of this model", fn);
        return VN_ERROR;
    }
    memset(s, 0, sizeof *s);
    s->magic = VN_SNAPSHOT_MAGIC;
    s->time = inst->time;
    memcpy(s->x, inst->x, sizeof s->x);
    memcpy(s->p, inst->p, sizeof s->p);
    memcpy(s->u, inst->u, sizeof s->u);
    memcpy(s->w, inst->w, sizeof s->w);
    s->kind = inst->kind;
    s->mode = (int)inst->mode;
    s->last_successful_time = inst->last_successful_time;
    s->h_next = inst->h_next;
    s->err_old = inst->err_old;
    *state = s;
    return VN_OK;
}

int vn_set_state(vn_instance *inst, const char *fn, const void *state)
{
    const vn_snapshot *s = (const vn_snapshot *)state;
    if (s == NULL || s->magic != VN_SNAPSHOT_MAGIC) {
        vn_log(inst, VN_ERROR, "%s: not an FMU state of this model", fn);
        return VN_ERROR;
    }
    if (s->kind != inst->kind || s->mode < 0 || s->mode > (int)VN_MODE_TERMINATED) {
        vn_log(inst, VN_ERROR, "%s: the FMU state belongs to another kind of instance",
               fn);
        return VN_ERROR;
    }
    inst->time = s->time;
    memcpy(inst->x, s->x, sizeof inst->x);
    memcpy(inst->p, s->p, sizeof inst->p);
    memcpy(inst->u, s->u, sizeof inst->u);
    memcpy(inst->w, s->w, sizeof inst->w);
    inst->mode = (vn_mode)s->mode;
    inst->last_successful_time = s->last_successful_time;
    inst->h_next = s->h_next;
    inst->err_old = s->err_old;
    return VN_OK;
}

int vn_free_state(vn_instance *inst, const char *fn, void **state)
{
    (void)fn;
    if (state == NULL) return VN_OK;
    if (*state != NULL) {
        ((vn_snapshot *)*state)->magic = 0;
        inst->dealloc(*state);
    }
    *state = NULL;
    return VN_OK;
}

int vn_deserialize_state(vn_instance *inst, const char *fn, const void *bytes,
                         size_t size, void **state)
{
    vn_snapshot *s;
    if (bytes == NULL || state == NULL || size != sizeof(vn_snapshot)) {
        vn_log(inst, VN_ERROR, "%s: %lu bytes are not a serialized FMU state of "
               "this model (%lu bytes)", fn, (unsigned long)size,
               (unsigned long)sizeof(vn_snapshot));
        return VN_ERROR;
    }
    {
        /* bytes may be unaligned: compare a copy */
        unsigned long magic;
        memcpy(&magic, bytes, sizeof magic);
        if (magic != VN_SNAPSHOT_MAGIC) {
            vn_log(inst, VN_ERROR, "%s: not a serialized FMU state of this model", fn);
            return VN_ERROR;
        }
    }
    s = (vn_snapshot *)*state;
    if (s == NULL) {
        s = (vn_snapshot *)inst->alloc(1, sizeof *s);
        if (s == NULL) {
            vn_log(inst, VN_ERROR, "%s: out of memory", fn);
            return VN_ERROR;
        }
    }
    memcpy(s, bytes, sizeof *s);
    *state = s;
    return VN_OK;
}

/* ------------------------------------------------------------------------ */
/* dense linear solver                                                      */

int vn_solve(int n, double *A, double *b)
{
    int i, j, k;
    double scale_buf[64];
    double *scale = scale_buf;
    int status = 0;
    if (n <= 0) return 0;
    if (A == NULL || b == NULL) return 1;
    if (n > 64) {
        scale = (double *)malloc((size_t)n * sizeof(double));
        if (scale == NULL) return 1;
    }
    /* each column's scale: its largest magnitude */
    for (j = 0; j < n; j++) {
        double m = 0.0;
        for (i = 0; i < n; i++) {
            double a = fabs(A[(size_t)i * n + j]);
            if (a > m) m = a;
        }
        scale[j] = m;
    }
    for (k = 0; k < n; k++) {
        int piv = k;
        double best = fabs(A[(size_t)k * n + k]);
        double d;
        for (i = k + 1; i < n; i++) {
            double a = fabs(A[(size_t)i * n + k]);
            if (a > best) {
                best = a;
                piv = i;
            }
        }
        if (!(best > 0.0) || !(best >= 1e-300 * scale[k])) {
            status = k + 1;
            break;
        }
        if (piv != k) {
            double tmp;
            for (j = 0; j < n; j++) {
                tmp = A[(size_t)k * n + j];
                A[(size_t)k * n + j] = A[(size_t)piv * n + j];
                A[(size_t)piv * n + j] = tmp;
            }
            tmp = b[k];
            b[k] = b[piv];
            b[piv] = tmp;
        }
        d = A[(size_t)k * n + k];
        for (i = k + 1; i < n; i++) {
            double f = A[(size_t)i * n + k] / d;
            A[(size_t)i * n + k] = f;
            if (f != 0.0) {
                for (j = k + 1; j < n; j++)
                    A[(size_t)i * n + j] -= f * A[(size_t)k * n + j];
                b[i] -= f * b[k];
            }
        }
    }
    if (status == 0) {
        for (i = n - 1; i >= 0; i--) {
            double s = b[i];
            for (j = i + 1; j < n; j++) s -= A[(size_t)i * n + j] * b[j];
            b[i] = s / A[(size_t)i * n + i];
        }
    }
    if (scale != scale_buf) free(scale);
    return status;
}
