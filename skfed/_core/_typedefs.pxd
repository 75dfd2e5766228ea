# Integer and float types shared by every Cython module of skfed.
#
# Node offsets and sample indices are ``intp_t`` (``np.intp`` in Python);
# per-node seeds are ``uint32_t`` (``np.uint32``); byte and message counts are
# ``int64_t`` (``np.int64``) so they never overflow on long runs.

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t

ctypedef Py_ssize_t intp_t
ctypedef double float64_t
ctypedef float float32_t
