"""Reference cases that fail today, by cause: strict expected failures.

Most are issue 9 items (being fixed); when a fix makes a case pass, pytest reports XPASS(strict)
as a failure and the entry must be removed here. A few are problems outside issue 9, named
"not in issue 9". Python-value conversion (convert on Python numbers) is exact for all of them.

A key is a test id (``samples_if.sign[3]``) or a case name followed by ``[*`` (every input of
that case).
"""

REASONS = {
    "item5_tensor": "issue 9 item 5, with a float tensor in the other branch: `if x > 0: return "
                    "2` / `return x * 0.5` gives 2.0 (float32) where Python returns the int 2; "
                    "only an error naming the return and both types keeps the promise",
    "item8_precision": "issue 9 item 8, silently wrong: a Python float carried by a tensor loop "
                       "(acc = 0.0; acc = (acc - 8.0) % 1e13 in `for i in range(n)`) is "
                       "computed in float32 (9999999827968.5 where Python gives "
                       "9999999999992.5), though the result is float64",
    "item13_message": "issue 9 item 13: an int and a float appended to one list in a tensor "
                      "loop raise 'TensorArray.write: the TensorArray holds int32 elements but "
                      "the value is a tensor of dtype float32', which names neither the list "
                      "`out` nor its line",
    "warning_leak": "not in issue 9: a float64 overflow to inf (1e300 * 1e10, inf as in Python) "
                    "emits NumPy's RuntimeWarning 'overflow encountered in multiply' from eager "
                    "ops and from the graph plan; Python does not warn",
}

KNOWN_GAPS = {
    # warning_leak
    'samples_wide.float_extremes@float64[1e+300]': 'warning_leak',
    # item8_precision
    'samples_wide.python_float_accumulated_in_loop@float64,int32[0.5,1]': 'item8_precision',
    'samples_wide.python_float_accumulated_in_loop@float64,int32[0.5,3]': 'item8_precision',
    # item5_tensor
    'samples_semantics.return_int_or_float_tensor/tensor[*': 'item5_tensor',
    # item13_message
    'samples_collections.append_mixed_dtypes[*': 'item13_message',
}


def gap_for(case_id: str) -> str | None:
    """The REASONS key of ``case_id`` (``samples_if.sign[3]``), or None."""
    if case_id in KNOWN_GAPS:
        return KNOWN_GAPS[case_id]
    return KNOWN_GAPS.get(case_id[:case_id.index("[")] + "[*") if "[" in case_id else None
