/* Keeps gc_test_support non-empty before any helper exists. */
typedef int gc_test_support_empty;
