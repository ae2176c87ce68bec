/* motionfusion._step: the per-sample call of Filter.update as a CPython extension.
 *
 * Filter.update is called once per sample, so the cost of the call itself counts: through ctypes
 * (converting each argument, releasing and taking the GIL) it was about 2.3 us, twice VQF's. This
 * module does the same call, mf_filter_step of the C ABI (motionfusion.h), from C: one Stepper per
 * Filter holds the native filter, its `step(t, gyr, acc, mag)` reads the numbers straight from the
 * arguments and returns the attitude as a new (4,) float64 array.
 *
 * The library is the one the package loaded with ctypes (motionfusion/_lib, or
 * MOTIONFUSION_LIBRARY): `bind(address)` gives this module mf_filter_step's address in it, so both
 * bindings call the same copy and the extension does not link the library itself.
 *
 * step() takes what it can read without Python-level conversions: t a number (anything
 * PyFloat_AsDouble takes, as struct's "d" does), each vector None, a list or tuple of 3 numbers, or a
 * one-dimensional float64 numpy array of 3 values. For anything else it returns None without
 * touching the filter, and Filter.update takes its general path (which checks and converts, and
 * raises the errors). The GIL is kept: one sample is a few hundred nanoseconds, less than what
 * releasing and taking it again would add.
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

typedef struct {
    PyObject_HEAD
    mf_filter *filter; /* NULL once closed */
    PyObject *report;  /* called without arguments when a step has new warnings */
} Stepper;

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
        PyObject *x = items[i];
        out[i] = PyFloat_CheckExact(x) ? PyFloat_AS_DOUBLE(x) : PyFloat_AsDouble(x);
        if (out[i] == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
    }
    return 1;
}

static PyObject *Stepper_step(Stepper *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "step takes t, gyr, acc, mag (%zd given)", nargs);
        return NULL;
    }
    if (self->filter == NULL || filter_step == NULL) {
        Py_RETURN_NONE;
    }
    double sample[10];
    PyObject *t = args[0];
    sample[0] = PyFloat_CheckExact(t) ? PyFloat_AS_DOUBLE(t) : PyFloat_AsDouble(t);
    if (sample[0] == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (!read_vector(args[1], sample + 1) || !read_vector(args[2], sample + 4) || !read_vector(args[3], sample + 7)) {
        Py_RETURN_NONE;
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

static PyObject *Stepper_close(Stepper *self, PyObject *Py_UNUSED(ignored)) {
    self->filter = NULL;
    Py_RETURN_NONE;
}

static int Stepper_init(Stepper *self, PyObject *args, PyObject *kwargs) {
    PyObject *address, *report;
    static char *names[] = {"filter", "report", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:Stepper", names, &address, &report)) {
        return -1;
    }
    if (!PyCallable_Check(report)) {
        PyErr_SetString(PyExc_TypeError, "report must be callable");
        return -1;
    }
    void *filter = PyLong_AsVoidPtr(address);
    if (filter == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "no native filter (a null address)");
        }
        return -1;
    }
    self->filter = filter;
    Py_INCREF(report);
    Py_XSETREF(self->report, report);
    return 0;
}

static int Stepper_traverse(Stepper *self, visitproc visit, void *arg) {
    Py_VISIT(self->report);
    return 0;
}

static int Stepper_clear(Stepper *self) {
    Py_CLEAR(self->report);
    return 0;
}

static void Stepper_dealloc(Stepper *self) {
    PyObject_GC_UnTrack(self);
    Stepper_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Stepper_methods[] = {
    {"step", (PyCFunction)(void (*)(void))Stepper_step, METH_FASTCALL,
     "step(t, gyr, acc, mag): mf_filter_step on one sample; the attitude after it as a new (4,) "
     "array, or None (the filter untouched) for arguments this fast path does not read."},
    {"close", (PyCFunction)Stepper_close, METH_NOARGS,
     "Forgets the native filter (it is being freed): step returns None from then on."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject StepperType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "motionfusion._step.Stepper",
    .tp_doc = PyDoc_STR("Stepper(filter, report): the per-sample call of one native filter (its address). "
                        "report() is called when a step leaves warnings to fetch."),
    .tp_basicsize = sizeof(Stepper),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Stepper_init,
    .tp_dealloc = (destructor)Stepper_dealloc,
    .tp_traverse = (traverseproc)Stepper_traverse,
    .tp_clear = (inquiry)Stepper_clear,
    .tp_methods = Stepper_methods,
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
    if (PyType_Ready(&StepperType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) {
        return NULL;
    }
    Py_INCREF(&StepperType);
    if (PyModule_AddObject(m, "Stepper", (PyObject *)&StepperType) < 0) {
        Py_DECREF(&StepperType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
