# whittle-node holds none of the test-only switches of whittle-node-test
# (node/CMakeLists.txt), and judges honestly with them set (issue 18).
wh_add_e2e(node_switches LABELS e2e cluster)
