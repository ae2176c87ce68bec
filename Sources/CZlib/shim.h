#ifndef MOTIONFUSION_CZLIB_SHIM_H
#define MOTIONFUSION_CZLIB_SHIM_H
// zlib from Debian's zlib1g-dev: raw DEFLATE decoding for .zip exports (phyphox, Sensor Logger).
#include <zlib.h>
#endif
