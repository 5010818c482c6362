#include "gmmu/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *gmmu_status_str(gmmu_status s)
{
    switch (s) {
    case GMMU_OK: return "ok";
    case GMMU_EINVAL: return "invalid argument";
    case GMMU_ENOMEM: return "out of memory";
    case GMMU_EFAULT: return "translation fault";
    case GMMU_EBUSY: return "resource busy";
    case GMMU_EMEM: return "memory access error";
    case GMMU_EEXIST: return "already mapped";
    }
    return "unknown status";
}

gmmu_status gmmu_error_set(gmmu_error *err, const char *field, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        snprintf(err->field, sizeof err->field, "%s", field ? field : "");
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return GMMU_EINVAL;
}
