/* vecnet FMU run-time: what FMI 2.0 (fmi2.c) and FMI 3.0 (fmi3.c) share.
 *
 * The instance record, the value-reference layout, the getters and setters
 * of Float64 (Real) variables, the mode checks, the dense linear solver that
 * generated code calls (vn_solve) and the Co-Simulation integrator (adaptive
 * Dormand-Prince 5(4)).
 *
 * model.h (generated per model) defines the sizes VN_NX, VN_NP, VN_NU, VN_NY,
 * VN_NW, VN_NZ, the token VN_TOKEN, the Co-Simulation tolerances VN_CS_RTOL and
 * VN_CS_ATOL, the start arrays and the model functions vn_initialize,
 * vn_derivatives, vn_outputs, vn_indicators, vn_update, vn_project and
 * vn_message.
 *
 * Value references (Float64 / Real):
 *   [0, NX)                 the continuous states x
 *   [NX, 2 NX)              their derivatives dx
 *   [2 NX, 2 NX + NP)       the parameters p
 *   then NU inputs u, then NY outputs y,
 *   VN_VR_TIME = 2 NX + NP + NU + NY: the independent variable time (read
 *   only; FMI 3.0 requires an independent variable with a value reference).
 *
 * There is no global mutable state: everything lives in the vn_instance.
 */
#ifndef VN_RUNTIME_H
#define VN_RUNTIME_H

#include <stddef.h>

/* The model's and the run-time's own functions are internal to the shared
   library: hidden, so that two FMUs loaded into one process cannot bind each
   other's vn_* symbols. The FMI functions stay visible (the FMI headers mark
   them with visibility "default"). */
#if defined(__GNUC__) && !defined(_WIN32) && !defined(__CYGWIN__)
#define VN_HIDDEN_BEGIN _Pragma("GCC visibility push(hidden)")
#define VN_HIDDEN_END _Pragma("GCC visibility pop")
#else
#define VN_HIDDEN_BEGIN
#define VN_HIDDEN_END
#endif

VN_HIDDEN_BEGIN

#include "model.h"

#ifndef VN_NZ
#define VN_NZ 0
#endif

/* an array of n doubles that is at least one long */
#define VN_LEN(n) ((n) > 0 ? (n) : 1)

#define VN_VR_X    0u
#define VN_VR_DX   ((unsigned)(VN_NX))
#define VN_VR_P    ((unsigned)(2 * (VN_NX)))
#define VN_VR_U    ((unsigned)(2 * (VN_NX) + (VN_NP)))
#define VN_VR_Y    ((unsigned)(2 * (VN_NX) + (VN_NP) + (VN_NU)))
#define VN_VR_TIME ((unsigned)(2 * (VN_NX) + (VN_NP) + (VN_NU) + (VN_NY)))

/* Co-Simulation integrator limits */
#define VN_CS_MAX_STEPS 100000L
#define VN_CS_MIN_STEP_REL 1e-14
/* how closely a Co-Simulation step locates a state event, relative to max(1, |t|) */
#define VN_CS_EVENT_TOL 1e-13

/* statuses, numerically equal to fmi2Status and fmi3Status */
enum { VN_OK = 0, VN_WARNING = 1, VN_DISCARD = 2, VN_ERROR = 3, VN_FATAL = 4 };

/* the kind of an instance */
enum { VN_ME = 0, VN_CS = 1 };

/* the mode an instance is in */
typedef enum {
    VN_MODE_INSTANTIATED = 0,
    VN_MODE_INIT,
    VN_MODE_EVENT,
    VN_MODE_CONTINUOUS, /* Model Exchange: continuous-time mode */
    VN_MODE_STEP,       /* Co-Simulation: step mode */
    VN_MODE_TERMINATED
} vn_mode;

typedef struct vn_instance vn_instance;

/* passes one message to the FMI version's logger callback */
typedef void (*vn_emit_fn)(const vn_instance *inst, int status,
                           const char *category, const char *message);

/* a generic function pointer: the FMI version's logger, cast back by emit */
typedef void (*vn_any_fn)(void);

struct vn_instance {
    /* the model's variables */
    double time;
    double x[VN_LEN(VN_NX)];  /* continuous states */
    double dx[VN_LEN(VN_NX)]; /* their derivatives (scratch of the getters) */
    double p[VN_LEN(VN_NP)];  /* parameters */
    double u[VN_LEN(VN_NU)];  /* inputs */
    double y[VN_LEN(VN_NY)];  /* outputs (scratch of the getters) */
    double w[VN_LEN(VN_NW)];  /* the model's work array, kept between calls */
    double z[VN_LEN(VN_NZ)];  /* event indicators (scratch) */

    /* mode flags */
    int kind;         /* VN_ME or VN_CS */
    vn_mode mode;
    int logging_on;
    int event_mode_used; /* FMI 3.0 Co-Simulation: event mode after init */
    double start_time;
    int stop_time_defined;
    double stop_time;

    /* Co-Simulation: the integrator's state */
    double last_successful_time;
    double h_next; /* the step size the controller proposes next (0: none) */
    double err_old;
    double k[7][VN_LEN(VN_NX)];
    double xs[VN_LEN(VN_NX)];    /* stage argument */
    double xnew[VN_LEN(VN_NX)];  /* the candidate step's end */
    double xerr[VN_LEN(VN_NX)];  /* the step's error estimate */
    double xproj[VN_LEN(VN_NX)]; /* scratch of vn_project */

    /* logger callback and instance name */
    char *name;
    void *env;
    vn_any_fn logger;
    vn_emit_fn emit;

    /* the memory functions the instance was allocated with */
    void *(*alloc)(size_t, size_t);
    void (*dealloc)(void *);
};

/* what fmi*GetFMUState keeps */
typedef struct {
    unsigned long magic;
    double time;
    double x[VN_LEN(VN_NX)];
    double p[VN_LEN(VN_NP)];
    double u[VN_LEN(VN_NU)];
    double w[VN_LEN(VN_NW)];
    int kind;
    int mode;
    double last_successful_time;
    double h_next;
    double err_old;
} vn_snapshot;

#define VN_SNAPSHOT_MAGIC 0x766e5331ul

/* allocation; alloc/dealloc NULL mean calloc/free */
vn_instance *vn_new(const char *name, int kind, void *env, vn_any_fn logger,
                    vn_emit_fn emit, void *(*alloc)(size_t, size_t),
                    void (*dealloc)(void *));
void vn_delete(vn_instance *inst);
/* start values, time 0, instantiated mode */
void vn_restart(vn_instance *inst);

/* logging: printf-like; errors are always passed on, other statuses only
   when logging is on */
void vn_log(const vn_instance *inst, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* logs a model function's nonzero code; returns VN_ERROR, or VN_OK when the
   code is 0 */
int vn_model_error(const vn_instance *inst, const char *where, int code);

/* Float64 / Real access by value reference; each returns VN_OK or VN_ERROR
   (having logged why) */
int vn_get_float64(vn_instance *inst, const char *fn, const unsigned *vr,
                   size_t nvr, double *value);
int vn_set_float64(vn_instance *inst, const char *fn, const unsigned *vr,
                   size_t nvr, const double *value);

/* the model's functions at the instance's current values */
int vn_eval_derivatives(vn_instance *inst, const char *fn, double *dx);
int vn_eval_indicators(vn_instance *inst, const char *fn, double *z);

/* ExitInitializationMode: vn_initialize, then the mode after it */
int vn_exit_initialization(vn_instance *inst, const char *fn);

/* Model Exchange: after an integrator step, *enter_event = 1 when vn_project
   would change x */
int vn_completed_step(vn_instance *inst, const char *fn, int *enter_event);
/* Model Exchange event mode: vn_update and vn_project on x */
int vn_event_update(vn_instance *inst, const char *fn, int *x_changed);

/* Co-Simulation: integrate from t to t + h */
int vn_do_step(vn_instance *inst, const char *fn, double t, double h);

/* FMU state */
int vn_get_state(vn_instance *inst, const char *fn, void **state);
int vn_set_state(vn_instance *inst, const char *fn, const void *state);
int vn_free_state(vn_instance *inst, const char *fn, void **state);
int vn_deserialize_state(vn_instance *inst, const char *fn,
                         const void *bytes, size_t size, void **state);

/* mode checks: returns VN_OK when inst->mode is one of the modes whose bits
   (1 << mode) are set in mask, else logs and returns VN_ERROR */
int vn_check_mode(const vn_instance *inst, const char *fn, unsigned mask);
#define VN_M(mode) (1u << (mode))
#define VN_M_ANY 0xffffu

/* checks that n counts equal, and that an array of n > 0 is not NULL */
int vn_check_array(const vn_instance *inst, const char *fn, const char *what,
                   const void *array, size_t n, size_t expected);

const char *vn_mode_name(vn_mode mode);

/* dense LU with partial pivoting, row-major A (n x n), b overwritten by the
   solution, A by its factors; nonzero (the 1-based column) when a pivot is zero
   or below 1e-300 relative to its column's scale */
int vn_solve(int n, double *A, double *b);

VN_HIDDEN_END

#endif /* VN_RUNTIME_H */
