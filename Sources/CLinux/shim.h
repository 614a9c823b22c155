// Linux headers that Glibc's Swift module leaves out (epoll, eventfd, signalfd),
// for FaultlinePosix's epoll backend only. Compiled on Linux only.
#ifndef FAULTLINE_CLINUX_SHIM_H
#define FAULTLINE_CLINUX_SHIM_H
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <signal.h>
#endif
#endif
