#ifndef MOTIONFUSION_CLAPACK_SHIM_H
#define MOTIONFUSION_CLAPACK_SHIM_H
#include <cblas.h>
#include <lapacke.h>
#endif
