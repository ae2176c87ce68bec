/* motionfusion._step: the per-sample call of Filter.update as a CPython extension.
 *
 * Filter.update is called once per sample, so the cost of the call itself counts: through ctypes
 * (a Python method converting its arguments, then ctypes converting them again and releasing and
 * taking the GIL) it was about 2.3 us, twice VQF's update + getQuat9D. Here FilterBase, the base
 * class of motionfusion.Filter, implements update in C: a call update(t, gyr, acc[, mag]) whose
 * arguments are read here goes straight to mf_filter_step of the C ABI (motionfusion.h) and returns
 * the attitude as a new (4,) float64 array; every other call (keywords, dt=, other types) is handed
 * as it was made to the Python method _update_general, which checks, converts and raises.
 *
 * Read here: t a number (anything PyFloat_AsDouble takes, as struct's "d" format does), each vector
 * None, a list or tuple of 3 numbers, or a one-dimensional float64 numpy array of 3 values (any
 * stride, native byte order).
 *
 * The library is the one the package loaded with ctypes (motionfusion/_lib, or
 * MOTIONFUSION_LIBRARY): bind(address) gives this module mf_filter_step's address in it, so both
 * bindings call the same copy and the extension does not link the library itself. The GIL is kept:
 * one sample takes a few hundred nanoseconds, less than releasing and taking it again would add.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

#define NPY_NO_DEPRECATED_API NPY_1_22_API_VERSION
#define NPY_TARGET_VERSION NPY_1_22_API_VERSION /* the oldest numpy the package depends on */
#include <numpy/arrayobject.h>

#include "motionfusion.h"

/* mf_filter_step in the loaded library; the type is the header's, so a change there fails here. */
static __typeof__(&mf_filter_step) filter_step = NULL;

/* Reads a number as struct's "d" format does (PyFloat_AsDouble); 0 when it is not one (no error set). */
static int read_number(PyObject *x, double *out) {
    *out = PyFloat_CheckExact(x) ? PyFloat_AS_DOUBLE(x) : PyFloat_AsDouble(x);
    if (*out == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

typedef struct {
    PyObject_HEAD
    mf_filter *filter; /* NULL until bound, and once unbound */
    PyObject *report;  /* called without arguments when a step leaves warnings to fetch */
} Base;

/* The name of the general path Base.update hands other arguments to. */
static PyObject *general_name = NULL;

/* Reads one sensor's 3 values into out; 0 when `v` is not a form read here (no error set). */
static int read_vector(PyObject *v, double *out) {
    if (v == Py_None) {
        out[0] = out[1] = out[2] = NAN;
        return 1;
    }
    if (PyArray_CheckExact(v)) {
        PyArrayObject *a = (PyArrayObject *)v;
        if (PyArray_NDIM(a) != 1 || PyArray_DIM(a, 0) != 3 || PyArray_TYPE(a) != NPY_DOUBLE ||
            !PyArray_ISNOTSWAPPED(a) || !PyArray_ISALIGNED(a)) {
            return 0;
        }
        const char *data = PyArray_BYTES(a);
        npy_intp stride = PyArray_STRIDE(a, 0);
        for (int i = 0; i < 3; i++) {
            out[i] = *(const double *)(data + i * stride);
        }
        return 1;
    }
    PyObject *const *items;
    if (PyList_CheckExact(v) && PyList_GET_SIZE(v) == 3) {
        items = ((PyListObject *)v)->ob_item;
    } else if (PyTuple_CheckExact(v) && PyTuple_GET_SIZE(v) == 3) {
        items = ((PyTupleObject *)v)->ob_item;
    } else {
        return 0;
    }
    for (int i = 0; i < 3; i++) {
        if (!read_number(items[i], out + i)) {
            return 0;
        }
    }
    return 1;
}

/* One sample through mf_filter_step when every argument is read here; NULL with no error set when
 * one is not (the filter untouched), NULL with an error when reporting the warnings failed. */
static PyObject *step(Base *self, PyObject *const *args, Py_ssize_t nargs) {
    double sample[10];
    if (!read_number(args[0], sample) || !read_vector(args[1], sample + 1) || !read_vector(args[2], sample + 4)) {
        return NULL;
    }
    if (nargs == 4) {
        if (!read_vector(args[3], sample + 7)) {
            return NULL;
        }
    } else {
        sample[7] = sample[8] = sample[9] = NAN;
    }
    npy_intp four = 4;
    PyObject *q = PyArray_SimpleNew(1, &four, NPY_DOUBLE);
    if (q == NULL) {
        return NULL;
    }
    if (filter_step(self->filter, sample, (double *)PyArray_DATA((PyArrayObject *)q)) != 0) {
        PyObject *r = PyObject_CallNoArgs(self->report);
        if (r == NULL) {
            Py_DECREF(q);
            return NULL;
        }
        Py_DECREF(r);
    }
    return q;
}

/* Filter.update: positional (t, gyr, acc[, mag]) read here go straight to mf_filter_step; any
 * other call is handed, as it was made, to the subclass's _update_general. */
static PyObject *Base_update(Base *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (kwnames == NULL && (nargs == 3 || nargs == 4) && self->filter != NULL && filter_step != NULL) {
        PyObject *q = step(self, args, nargs);
        if (q != NULL || PyErr_Occurred()) {
            return q;
        }
    }
    Py_ssize_t total = nargs + (kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames));
    PyObject *small[8];
    PyObject **with_self = total + 1 <= 8 ? small : PyMem_Malloc((size_t)(total + 1) * sizeof(PyObject *));
    if (with_self == NULL) {
        return PyErr_NoMemory();
    }
    with_self[0] = (PyObject *)self;
    for (Py_ssize_t i = 0; i < total; i++) {
        with_self[i + 1] = args[i];
    }
    PyObject *result = PyObject_VectorcallMethod(general_name, with_self, (size_t)(nargs + 1), kwnames);
    if (with_self != small) {
        PyMem_Free(with_self);
    }
    return result;
}

static PyObject *Base_bind(Base *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "_bind takes the native filter's address and the report callable");
        return NULL;
    }
    if (!PyCallable_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "report must be callable");
        return NULL;
    }
    void *filter = PyLong_AsVoidPtr(args[0]);
    if (filter == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "no native filter (a null address)");
        }
        return NULL;
    }
    self->filter = filter;
    Py_INCREF(args[1]);
    Py_XSETREF(self->report, args[1]);
    Py_RETURN_NONE;
}

static PyObject *Base_unbind(Base *self, PyObject *Py_UNUSED(ignored)) {
    self->filter = NULL;
    Py_RETURN_NONE;
}

static int Base_traverse(Base *self, visitproc visit, void *arg) {
    Py_VISIT(self->report);
    return 0;
}

static int Base_clear(Base *self) {
    Py_CLEAR(self->report);
    return 0;
}

static void Base_dealloc(Base *self) {
    PyObject_GC_UnTrack(self);
    Base_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Base_methods[] = {
    {"update", (PyCFunction)(void (*)(void))Base_update, METH_FASTCALL | METH_KEYWORDS,
     "update($self, /, t=None, gyr=None, acc=None, mag=None, *, dt=None)\n--\n\n"
     "Processes one sample at time ``t`` (s): ``gyr`` rad/s, ``acc`` m/s\xc2\xb2, ``mag`` \xc2\xb5T (3 values\n"
     "each, or None when that sensor has no new value; NaN values count as none). Returns the\n"
     "attitude after it (w, x, y, z, ENU from sensor, w >= 0; as :attr:`quaternion`).\n\n"
     "As in :func:`replay`, the step is the time since the previous sample, the last gyroscope\n"
     "value is held (up to 0.1 s) for a sample without one (sensors at different rates), a time\n"
     "that does not increase integrates nothing, and a gap over 1 s re-initialises. Values are\n"
     "screened as a file's are (a value beyond any sensor's range counts as none; the first\n"
     "samples' units are checked): problems are :class:`MotionFusionWarning`.\n\n"
     "``dt=`` instead of ``t`` gives the seconds since the previous sample (the filter keeps the\n"
     "clock, from 0). The earlier form ``update(gyr, acc, mag, dt)`` still works, with a\n"
     "DeprecationWarning."},
    {"_bind", (PyCFunction)(void (*)(void))Base_bind, METH_FASTCALL,
     "_bind(address, report): the native filter update steps, and what to call when a step leaves warnings."},
    {"_unbind", (PyCFunction)Base_unbind, METH_NOARGS,
     "Forgets the native filter (it is being freed): update takes the general path from then on."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject BaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "motionfusion._step.FilterBase",
    .tp_doc = PyDoc_STR("The per-sample call of motionfusion.Filter (its base class): update() in C."),
    .tp_basicsize = sizeof(Base),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)Base_dealloc,
    .tp_traverse = (traverseproc)Base_traverse,
    .tp_clear = (inquiry)Base_clear,
    .tp_methods = Base_methods,
};

static PyObject *bind(PyObject *module, PyObject *address) {
    void *f = PyLong_AsVoidPtr(address);
    if (f == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "mf_filter_step's address is null");
        }
        return NULL;
    }
    filter_step = (__typeof__(&mf_filter_step))f;
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"bind", bind, METH_O, "bind(address): mf_filter_step's address in the library loaded by ctypes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "motionfusion._step",
    .m_doc = PyDoc_STR("The per-sample call of Filter.update (mf_filter_step) from C."),
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__step(void) {
    import_array();
    general_name = PyUnicode_InternFromString("_update_general");
    if (general_name == NULL || PyType_Ready(&BaseType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) {
        return NULL;
    }
    Py_INCREF(&BaseType);
    if (PyModule_AddObject(m, "FilterBase", (PyObject *)&BaseType) < 0) {
        Py_DECREF(&BaseType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
