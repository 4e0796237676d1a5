/* wc_error.c -- status names and error messages with a place. */
#include <stdarg.h>
#include <stdio.h>

#include "wc_common.h"

wc_status wc_fail(wc_err *err, wc_status s, const char *fmt, ...)
{
    if (err != NULL && err->msg[0] == '\0') {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return s;
}

const char *wc_strerror(wc_status s)
{
    switch (s) {
    case WC_OK: return "success";
    case WC_ERR_ARG: return "invalid argument";
    case WC_ERR_NOMEM: return "out of memory";
    case WC_ERR_IO: return "input/output error";
    case WC_ERR_FORMAT: return "unrecognised file format";
    case WC_ERR_VERSION: return "unsupported format version";
    case WC_ERR_CORRUPT: return "corrupt data";
    case WC_ERR_CHECKSUM: return "checksum mismatch";
    case WC_ERR_TRUNCATED: return "truncated data";
    case WC_ERR_LIMIT: return "resource limit exceeded";
    case WC_ERR_UNSUPPORTED: return "unsupported feature";
    case WC_ERR_BACKEND: return "compute backend error";
    case WC_ERR_BUFFER: return "output buffer too small";
    case WC_ERR_ABI: return "program built for another library version";
    }
    return "unknown status";
}
