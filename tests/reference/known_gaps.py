"""Reference cases the transpiler does not handle yet, by cause (tracked in issue 3).

Each is an expected failure (strict): when a fix makes one pass, the suite says so and
the entry must be removed. Python-value conversion is exact for all of them; the gaps
are in graph mode only, except where noted."""

REASONS = {
    "COMPOSITE_STATE": "attribute/item assignments are not carried through tensor control flow",
    "PRINT_IN_TENSOR_LOOP": "a print in a loop that the graph runs zero times still prints once",
    "UNDER_INVESTIGATION": "wrong result, cause not yet analysed",
}

KNOWN_GAPS = {
    'samples_calls.recursion_on_python_depth[-3,3]': "UNDER_INVESTIGATION",
    'samples_calls.recursion_on_python_depth[0,2]': "UNDER_INVESTIGATION",
    'samples_calls.recursion_on_python_depth[2,0]': "UNDER_INVESTIGATION",
    'samples_calls.recursion_on_python_depth[2,3]': "UNDER_INVESTIGATION",
    'samples_calls.recursion_on_python_depth[5,4]': "UNDER_INVESTIGATION",
    'samples_print.print_before_break[-1]': "PRINT_IN_TENSOR_LOOP",
    'samples_print.print_before_break[0]': "PRINT_IN_TENSOR_LOOP",
    'samples_print.print_before_break[1]': "PRINT_IN_TENSOR_LOOP",
    'samples_print.print_before_break[3]': "PRINT_IN_TENSOR_LOOP",
    'samples_print.print_before_break[5]': "PRINT_IN_TENSOR_LOOP",
    'samples_print.print_loop_variable_updated[-1]': "PRINT_IN_TENSOR_LOOP",
    'samples_print.print_loop_variable_updated[0]': "PRINT_IN_TENSOR_LOOP",
    'samples_print.print_loop_variable_updated[1]': "PRINT_IN_TENSOR_LOOP",
    'samples_print.print_loop_variable_updated[3]': "PRINT_IN_TENSOR_LOOP",
    'samples_print.print_loop_variable_updated[5]': "PRINT_IN_TENSOR_LOOP",
    'samples_misc.attribute_modified_in_if[-2,4]': "COMPOSITE_STATE",
    'samples_misc.attribute_modified_in_if[-3,-7]': "COMPOSITE_STATE",
    'samples_misc.attribute_modified_in_if[0,0]': "COMPOSITE_STATE",
    'samples_misc.attribute_modified_in_if[3,5]': "COMPOSITE_STATE",
    'samples_misc.attribute_modified_in_if[4,-2]': "COMPOSITE_STATE",
    'samples_misc.attribute_modified_in_if[5,3]': "COMPOSITE_STATE",
    'samples_misc.attribute_modified_in_if[6,6]': "COMPOSITE_STATE",
    'samples_misc.dict_item_modified_in_if[-1]': "COMPOSITE_STATE",
    'samples_misc.dict_item_modified_in_if[-2]': "COMPOSITE_STATE",
    'samples_misc.dict_item_modified_in_if[-9]': "COMPOSITE_STATE",
    'samples_misc.dict_item_modified_in_if[12]': "COMPOSITE_STATE",
    'samples_misc.dict_item_modified_in_if[1]': "COMPOSITE_STATE",
    'samples_misc.dict_item_modified_in_if[3]': "COMPOSITE_STATE",
    'samples_misc.dict_item_modified_in_if[7]': "COMPOSITE_STATE",
    'samples_misc.list_item_modified_in_loop[-3]': "COMPOSITE_STATE",
    'samples_misc.list_item_modified_in_loop[0]': "COMPOSITE_STATE",
    'samples_misc.list_item_modified_in_loop[12]': "COMPOSITE_STATE",
    'samples_misc.list_item_modified_in_loop[1]': "COMPOSITE_STATE",
    'samples_misc.list_item_modified_in_loop[5]': "COMPOSITE_STATE",
}
