# The house rules (README.md "Layout"): no include circle between modules,
# only the arrows between folders the README allows, file sizes, and no
# more than 15 .c files directly in coordinator/.
add_test(NAME layout COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/check_layout.py ${PROJECT_SOURCE_DIR})
set_tests_properties(layout PROPERTIES TIMEOUT 60)
