"""The C every kernel module starts and ends with: the operand checks, the arrays a kernel
returns, and the scalar helpers that give NumPy's results where C's operators do not (wrapping
integers, integer and float ``//`` and ``%``, maximum and minimum with NaN, pairwise sums),
each the C twin of a helper of ``helpers`` (Numba's) or of NumPy's own C; and NumPy's own
inner loops for exp, log, sin and the like (``LOOP_SLOTS``)."""

from runtime.backends.jit.element_rules import NUMPY_LOOPS

# The NumPy loops a module can call, by slot: (ufunc name, dtype). ``c_build`` hands each
# module the loops of this process's NumPy when it loads it, and checks them.
LOOP_SLOTS = tuple((name, dtype) for name in sorted(NUMPY_LOOPS.values())
                   for dtype in ("float32", "float64"))

PRELUDE = r"""
#define PY_SSIZE_T_CLEAN
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <Python.h>
#include <numpy/arrayobject.h>
#include <numpy/ufuncobject.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* A kernel whose own body runs no loop (its loops are nest functions) is plumbing: operand
   checks, allocations, reference counts and calls. A quick build (c_build.OPTIMIZATION)
   compiles it unoptimized, which takes four tenths less compile time for 3-5% of a call. */
#if defined(EAGER2GRAPH_QUICK_BUILD) && defined(__clang__)
#define PLUMBING __attribute__((optnone))
#elif defined(EAGER2GRAPH_QUICK_BUILD) && defined(__GNUC__)
#define PLUMBING __attribute__((optimize("O0")))
#else
#define PLUMBING
#endif

typedef void (*gemm_s)(int, int, int, GEMM_INDEX, GEMM_INDEX, GEMM_INDEX, float,
                       const float*, GEMM_INDEX, const float*, GEMM_INDEX, float, float*,
                       GEMM_INDEX);
typedef void (*gemm_d)(int, int, int, GEMM_INDEX, GEMM_INDEX, GEMM_INDEX, double,
                       const double*, GEMM_INDEX, const double*, GEMM_INDEX, double, double*,
                       GEMM_INDEX);

static int operand_matches(PyObject* x, int type, int ndim, const npy_intp* dims, int index) {
    if (!PyArray_Check(x) || PyArray_TYPE((PyArrayObject*)x) != type
            || PyArray_NDIM((PyArrayObject*)x) != ndim
            || !PyArray_IS_C_CONTIGUOUS((PyArrayObject*)x)) {
        PyErr_Format(PyExc_TypeError, "operand %d of the kernel is not the C-contiguous "
                     "array it was compiled for", index);
        return 0;
    }
    for (int i = 0; i < ndim; i++) {
        if (PyArray_DIM((PyArrayObject*)x, i) != dims[i]) {
            PyErr_Format(PyExc_TypeError, "operand %d of the kernel has another shape than "
                         "the one it was compiled for", index);
            return 0;
        }
    }
    return 1;
}

static long long read_signed(PyObject* x) {
    PyObject* n = PyNumber_Index(x);
    if (!n) return 0;
    long long v = PyLong_AsLongLong(n);
    Py_DECREF(n);
    return v;
}

static unsigned long long read_unsigned(PyObject* x) {
    PyObject* n = PyNumber_Index(x);
    if (!n) return 0;
    unsigned long long v = PyLong_AsUnsignedLongLong(n);
    Py_DECREF(n);
    return v;
}

/* A new reference to the whole of `base` when its data, shape and strides are these, else
   a view of `base` with them (strides in elements). */
static PyObject* returned(PyObject* base, char* data, int type, int ndim, npy_intp* dims,
                          const npy_intp* strides) {
    PyArrayObject* a = (PyArrayObject*)base;
    npy_intp item = PyArray_ITEMSIZE(a), bytes[NPY_MAXDIMS];
    int same = PyArray_DATA(a) == (void*)data && PyArray_NDIM(a) == ndim;
    for (int i = 0; i < ndim; i++) {
        bytes[i] = strides[i] * item;
        same = same && PyArray_DIM(a, i) == dims[i] && PyArray_STRIDE(a, i) == bytes[i];
    }
    if (same) { Py_INCREF(base); return base; }
    PyObject* view = PyArray_NewFromDescr(&PyArray_Type, PyArray_DescrFromType(type), ndim,
                                          dims, bytes, data,
                                          PyArray_FLAGS(a) & NPY_ARRAY_WRITEABLE, NULL);
    if (!view) return NULL;
    Py_INCREF(base);
    if (PyArray_SetBaseObject((PyArrayObject*)view, base) < 0) { Py_DECREF(view); return NULL; }
    return view;
}

/* A new C-contiguous array of the elements at `data` with these strides (in elements). */
static PyObject* strided_copy(char* data, int type, int ndim, const npy_intp* dims,
                              const npy_intp* strides) {
    PyObject* out = PyArray_SimpleNew(ndim, (npy_intp*)dims, type);
    if (!out) return NULL;
    npy_intp item = PyArray_ITEMSIZE((PyArrayObject*)out), total = 1;
    for (int i = 0; i < ndim; i++) total *= dims[i];
    char* target = PyArray_DATA((PyArrayObject*)out);
    for (npy_intp flat = 0; flat < total; flat++) {
        npy_intp rest = flat, offset = 0;
        for (int i = ndim - 1; i >= 0; i--) {
            offset += (rest % dims[i]) * strides[i];
            rest /= dims[i];
        }
        memcpy(target + flat * item, data + offset * item, item);
    }
    return out;
}

/* NumPy's inner loops of unary float ufuncs (exp, log, ...), one per slot, as NumPy's ufunc
   calls them: the function NumPy chose for this processor, so the same bits. */
static PyUFuncGenericFunction loop_function[LOOP_SLOT_COUNT];
static void* loop_data[LOOP_SLOT_COUNT];
static int loop_type[LOOP_SLOT_COUNT];

static void numpy_loop(int slot, void* in, void* out, npy_intp count, npy_intp item) {
    char* args[2] = {(char*)in, (char*)out};
    npy_intp steps[2] = {item, item};
    loop_function[slot](args, &count, steps, loop_data[slot]);
}

static inline float numpy_loop_float32(int slot, float x) {
    float y;
    numpy_loop(slot, &x, &y, 1, sizeof(float));
    return y;
}

static inline double numpy_loop_float64(int slot, double x) {
    double y;
    numpy_loop(slot, &x, &y, 1, sizeof(double));
    return y;
}

static inline int64_t wrapping_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t wrapping_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static inline int64_t wrapping_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static inline int64_t wrapping_neg(int64_t a) { return (int64_t)((uint64_t)0 - (uint64_t)a); }
static inline int64_t wrapping_abs(int64_t a) { return a < 0 ? wrapping_neg(a) : a; }

/* NumPy's integer // and %: MIN // -1 wraps, results rounded down. A zero divisor gives 0 and
   sets zero_divisor, which makes the kernel raise ZeroDivisionError when it ends (as the plan
   raises; kernels run holding the GIL, and each clears the flag when it starts). */
static int zero_divisor = 0;
static inline int64_t int_floordiv(int64_t a, int64_t b) {
    if (b == 0) { zero_divisor = 1; return 0; }
    if (b == -1) return wrapping_neg(a);
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}
static inline uint64_t uint_floordiv(uint64_t a, uint64_t b) {
    if (b == 0) { zero_divisor = 1; return 0; }
    return a / b;
}
static inline int64_t int_mod(int64_t a, int64_t b) {
    if (b == 0) { zero_divisor = 1; return 0; }
    if (b == -1) return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
static inline uint64_t uint_mod(uint64_t a, uint64_t b) {
    if (b == 0) { zero_divisor = 1; return 0; }
    return a % b;
}
static inline int64_t truncated_mean(int64_t total, int64_t count) {
    int64_t q = (int64_t)((uint64_t)wrapping_abs(total) / (uint64_t)count);
    return total < 0 ? wrapping_neg(q) : q;
}

/* NumPy's maximum and minimum: NaN wins, and of two equal values the second. */
#define SELECTION_HELPERS(T, S)                                                           \
static inline T float_maximum_##S(T a, T b) { return (a > b || a != a) ? a : b; }        \
static inline T float_minimum_##S(T a, T b) { return (a < b || a != a) ? a : b; }
SELECTION_HELPERS(npy_bool, bool)
SELECTION_HELPERS(int8_t, int8)
SELECTION_HELPERS(int16_t, int16)
SELECTION_HELPERS(int32_t, int32)
SELECTION_HELPERS(int64_t, int64)
SELECTION_HELPERS(uint8_t, uint8)
SELECTION_HELPERS(uint16_t, uint16)
SELECTION_HELPERS(uint32_t, uint32)
SELECTION_HELPERS(uint64_t, uint64)
SELECTION_HELPERS(float, float32)
SELECTION_HELPERS(double, float64)

#define FLOAT_HELPERS(T, S, SQRT, POW)                                                    \
static inline T float_power_##S(T a, T b) { return b == (T)0.5 ? SQRT(a) : POW(a, b); }  \
static T pairwise_sum_##S(const T* v, int64_t n) {                                        \
    if (n < 8) {                                                                          \
        T total = (T)-0.0;                                                                \
        for (int64_t i = 0; i < n; i++) total += v[i];                                    \
        return total;                                                                     \
    }                                                                                     \
    if (n <= 128) {                                                                       \
        T r0 = v[0], r1 = v[1], r2 = v[2], r3 = v[3], r4 = v[4], r5 = v[5], r6 = v[6],     \
          r7 = v[7];                                                                      \
        int64_t end = n - n % 8, i = 8;                                                   \
        for (; i < end; i += 8) {                                                         \
            r0 += v[i]; r1 += v[i + 1]; r2 += v[i + 2]; r3 += v[i + 3];                   \
            r4 += v[i + 4]; r5 += v[i + 5]; r6 += v[i + 6]; r7 += v[i + 7];               \
        }                                                                                 \
        T total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7));                      \
        for (; i < n; i++) total += v[i];                                                 \
        return total;                                                                     \
    }                                                                                     \
    int64_t half = n / 2;                                                                 \
    half -= half % 8;                                                                     \
    return pairwise_sum_##S(v, half) + pairwise_sum_##S(v + half, n - half);              \
}
FLOAT_HELPERS(float, float32, sqrtf, powf)
FLOAT_HELPERS(double, float64, sqrt, pow)

/* NumPy's float // and % (npy_divmod): fmod, moved to the divisor's sign, the quotient
   snapped to an integer; a zero divisor gives a / b and fmod's NaN. */
#define DIVMOD_HELPERS(T, S, FMOD, FLOOR, COPYSIGN)                                       \
static inline T divmod_##S(T a, T b, T* modulus) {                                       \
    T mod = FMOD(a, b), div, floordiv;                                                   \
    if (!b) { *modulus = mod; return a / b; }                                            \
    div = (a - mod) / b;                                                                 \
    if (mod) {                                                                           \
        if ((b < 0) != (mod < 0)) { mod += b; div -= (T)1.0; }                           \
    } else {                                                                             \
        mod = COPYSIGN((T)0, b);                                                         \
    }                                                                                    \
    if (div) {                                                                           \
        floordiv = FLOOR(div);                                                           \
        if (div - floordiv > (T)0.5) floordiv += (T)1.0;                                 \
    } else {                                                                             \
        floordiv = COPYSIGN((T)0, a / b);                                                \
    }                                                                                    \
    *modulus = mod;                                                                      \
    return floordiv;                                                                     \
}                                                                                        \
static inline T floor_divide_##S(T a, T b) {                                             \
    T mod;                                                                               \
    return b ? divmod_##S(a, b, &mod) : a / b;                                           \
}                                                                                        \
static inline T remainder_##S(T a, T b) {                                                \
    T mod;                                                                               \
    if (!b) return FMOD(a, b);                                                           \
    divmod_##S(a, b, &mod);                                                              \
    return mod;                                                                          \
}
DIVMOD_HELPERS(float, float32, fmodf, floorf, copysignf)
DIVMOD_HELPERS(double, float64, fmod, floor, copysign)
"""

MODULE_TEMPLATE = r"""
static PyObject* set_gemm(PyObject* self, PyObject* args) {
    unsigned long long s, d;
    if (!PyArg_ParseTuple(args, "KK", &s, &d)) return NULL;
    sgemm_call = (gemm_s)(uintptr_t)s;
    dgemm_call = (gemm_d)(uintptr_t)d;
    Py_RETURN_NONE;
}

/* set_loops(((ufunc, type number), ...)): the loop of each slot, taken from the ufunc's
   table of loops (the ufunc is checked to be one by the caller). */
static PyObject* set_loops(PyObject* self, PyObject* args) {
    PyObject* slots;
    if (!PyArg_ParseTuple(args, "O!", &PyTuple_Type, &slots)) return NULL;
    if (PyTuple_GET_SIZE(slots) != LOOP_SLOT_COUNT) {
        PyErr_SetString(PyExc_ValueError, "set_loops takes one (ufunc, type) pair per slot");
        return NULL;
    }
    for (Py_ssize_t slot = 0; slot < LOOP_SLOT_COUNT; slot++) {
        PyObject* ufunc;
        int type, found = -1;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(slots, slot), "Oi", &ufunc, &type)) return NULL;
        PyUFuncObject* u = (PyUFuncObject*)ufunc;
        if (u->nin != 1 || u->nout != 1) {
            PyErr_SetString(PyExc_ValueError, "set_loops takes unary ufuncs");
            return NULL;
        }
        for (int i = 0; i < u->ntypes && found < 0; i++)
            if (u->types[2 * i] == type && u->types[2 * i + 1] == type) found = i;
        if (found < 0 || u->functions[found] == NULL) {
            PyErr_Format(PyExc_ValueError, "the ufunc %s has no loop for type %d", u->name, type);
            return NULL;
        }
        loop_function[slot] = u->functions[found];
        loop_data[slot] = u->data[found];
        loop_type[slot] = type;
    }
    Py_RETURN_NONE;
}

/* run_loop(slot, x): the slot's loop over the C-contiguous array x, into a new array. */
static PyObject* run_loop(PyObject* self, PyObject* args) {
    int slot;
    PyArrayObject* x;
    if (!PyArg_ParseTuple(args, "iO!", &slot, &PyArray_Type, &x)) return NULL;
    if (slot < 0 || slot >= LOOP_SLOT_COUNT || loop_function[slot] == NULL
            || !PyArray_IS_C_CONTIGUOUS(x) || PyArray_TYPE(x) != loop_type[slot]) {
        PyErr_SetString(PyExc_ValueError, "run_loop takes a set slot and a C-contiguous array "
                        "of its type");
        return NULL;
    }
    PyObject* out = PyArray_NewLikeArray(x, NPY_CORDER, NULL, 0);
    if (!out) return NULL;
    numpy_loop(slot, PyArray_DATA(x), PyArray_DATA((PyArrayObject*)out), PyArray_SIZE(x),
               PyArray_ITEMSIZE(x));
    return out;
}

static PyMethodDef methods[] = {
METHODS    {"set_gemm", set_gemm, METH_VARARGS, "the addresses of NumPy's sgemm and dgemm"},
    {"set_loops", set_loops, METH_VARARGS, "NumPy's loops of exp, log, ... by slot"},
    {"run_loop", run_loop, METH_VARARGS, "a slot's loop over an array (to check it)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef definition = {PyModuleDef_HEAD_INIT, "MODULE", NULL, -1, methods};

PyMODINIT_FUNC PyInit_MODULE(void) {
    import_array();
    return PyModule_Create(&definition);
}
"""
