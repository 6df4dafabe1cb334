# proto/auth: CURVE keys, the ZAP handler, roles, loopback-only --insecure (issue 10).
wh_add_test(test_auth SOURCES test_auth.c LIBS wh_proto)
# A hostile peer for the auth e2e tests (tests/e2e/cluster_auth.sh).
add_executable(wh_peer ${CMAKE_CURRENT_LIST_DIR}/wh_peer.c)
target_link_libraries(wh_peer PRIVATE wh_proto)
