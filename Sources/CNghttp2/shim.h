// nghttp2 for Faultline's HTTP/2 layer (mem_recv/mem_send, no I/O of its own).
#ifndef FAULTLINE_CNGHTTP2_SHIM_H
#define FAULTLINE_CNGHTTP2_SHIM_H
#include <nghttp2/nghttp2.h>
#endif
