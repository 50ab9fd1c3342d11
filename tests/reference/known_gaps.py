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
    "item8_loop": "issue 9 item 8 (weak Python numbers), not among its examples: a Python "
                  "number that leaves a tensor loop or a nested tensor if comes out strong "
                  "(y = 5.0 in `for i in range(n)` is float32, y = 5 int32; `elif x == 3: "
                  "return 5, y` gives an int32 retval[0]), so the enclosing if refuses \"'y' "
                  "has dtype float32 in the true branch but float64 in the false branch\" "
                  "against a 64-bit tensor",
    "swallowed": "not in issue 9: an exception raised while the body of a tensor loop that "
                 "contains a `return` is first traced (the ValueError a `try` there catches, a "
                 "KeyError Python raises too) is replaced by GraphTypeError \"'retval' is the "
                 "Python UndefinedReturnValue UndefinedReturnValue() when a tensor loop starts\"",
    "item13_return": "issue 9 item 13: appends in a tensor loop that follows an early `return` "
                     "under a tensor if are refused with \"out.append(...) inside an if "
                     "statement on a tensor at <the line of that if>\" (the return conversion "
                     "puts the rest of the function under the if); the user wrote no such append",
    "item13_message": "issue 9 item 13: an int and a float appended to one list in a tensor "
                      "loop raise 'TensorArray.write: the TensorArray holds int32 elements but "
                      "the value is a tensor of dtype float32', which names neither the list "
                      "`out` nor its line",
    "py_int_output": "not in issue 9: a traced function whose result is a Python int beyond "
                     "int32 (computed from Python-int arguments, e.g. 2**40 + 1) raises "
                     "OverflowError 'does not fit in int32' where Python returns the int",
    "py_float_output": "not in issue 9, silently wrong: a traced function whose result is a "
                       "Python float beyond float32 (from Python-float arguments: 1e300 * 2, "
                       "1e-300 * 2, 1e15 + 3.25) returns float32 inf / 0.0 / a rounded value "
                       "instead of Python's float (with an 'overflow encountered in cast' "
                       "RuntimeWarning for inf)",
    "warning_leak": "not in issue 9: a float64 overflow to inf (1e300 * 1e10, inf as in Python) "
                    "emits NumPy's RuntimeWarning 'overflow encountered in multiply' from eager "
                    "ops and from the graph plan; Python does not warn",
}

KNOWN_GAPS = {
    # py_int_output
    'samples_wide.wide_arithmetic/python_values[*': 'py_int_output',
    'samples_wide.int_of_tensor_plus_one/python_values[*': 'py_int_output',
    # py_float_output
    'samples_wide.float_of_tensor_times_two/python_values[*': 'py_float_output',
    'samples_wide.float_arithmetic/python_values[*': 'py_float_output',
    # warning_leak
    'samples_wide.float_extremes@float64[1e+300]': 'warning_leak',
    # item8_loop
    'samples_wide.python_float_through_loop_then_branch@float64,int32[*': 'item8_loop',
    'samples_wide.python_int_through_loop_then_branch@int64,int32[*': 'item8_loop',
    'samples_wide.python_int_in_a_returned_tuple@int64[*': 'item8_loop',
    # item5_tensor
    'samples_semantics.return_int_or_float_tensor/tensor[*': 'item5_tensor',
    # swallowed
    'samples_semantics.try_return_inside_tensor_loop[0,True]': 'swallowed',
    'samples_semantics.try_return_inside_tensor_loop[4,True]': 'swallowed',
    'samples_semantics.key_error_inside_loop_with_return[*': 'swallowed',
    # item13_return
    'samples_collections.append_after_early_return[*': 'item13_return',
    # item13_message
    'samples_collections.append_mixed_dtypes[*': 'item13_message',
}


def gap_for(case_id: str) -> str | None:
    """The REASONS key of ``case_id`` (``samples_if.sign[3]``), or None."""
    if case_id in KNOWN_GAPS:
        return KNOWN_GAPS[case_id]
    return KNOWN_GAPS.get(case_id[:case_id.index("[")] + "[*") if "[" in case_id else None
