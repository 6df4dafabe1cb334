/*
 * wh_peer — a hostile or misconfigured peer for the auth tests: connects a
 * DEALER to a coordinator with the given keys and routing id, sends one
 * message (HELLO as a node slot, SUBMIT of a JSON file, or STATUS_REQ), keeps
 * sending HEARTBEATs as a slot would, and after --wait MS prints what it
 * received: one line per message type ("EVALUATE 3"), then "total N".
 * --send tar uploads FILE (any bytes: a forged tar) as a tar snapshot
 * named by its sha256, as a client would (BLOB_PUT chunks), prints "BLOB
 * held N code C", then submits --json and prints the final PROGRESS as
 * "final CODE DETAIL".
 *
 *   wh_peer --connect EP [--secret-key F --server-key F] [--id ROUTING_ID]
 *           --send hello|submit|status|tar [--json FILE] [--tar FILE] [--wait MS]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "auth.h"
#include "wire.h"

int main(int argc, char **argv)
{
    const char *ep = NULL, *sec = NULL, *srv = NULL, *id = NULL, *send = "hello", *json = NULL;
    const char *tar = NULL;
    long wait_ms = 3000;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--connect")) ep = v;
        else if (!strcmp(a, "--secret-key")) sec = v;
        else if (!strcmp(a, "--server-key")) srv = v;
        else if (!strcmp(a, "--id")) id = v;
        else if (!strcmp(a, "--send")) send = v;
        else if (!strcmp(a, "--json")) json = v;
        else if (!strcmp(a, "--wait")) wait_ms = atol(v);
        else if (!strcmp(a, "--tar")) tar = v;
        else {
            fprintf(stderr, "wh_peer: unknown argument '%s'\n", a);
            return 2;
        }
    }
    char *err = NULL;
    wh_auth_keys_t k;
    int have = ep ? wh_auth_client_setup(&k, sec, srv, ep, !sec, &err) : -1;
    if (have < 0) {
        fprintf(stderr, "wh_peer: %s\n", err ? err : "missing --connect");
        return 2;
    }
    void *zctx = zmq_ctx_new(), *s = zmq_socket(zctx, ZMQ_DEALER);
    int zero = 0;
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof zero);
    if (id)
        zmq_setsockopt(s, ZMQ_ROUTING_ID, id, strlen(id));
    if ((have && wh_auth_client_apply(&k, s) != 0) || zmq_connect(s, ep) != 0) {
        fprintf(stderr, "wh_peer: cannot connect to %s\n", ep);
        return 2;
    }
    wh_msg_t m = {0};
    char *text = NULL;
    size_t len = 0;
    if (!strcmp(send, "tar")) {
        char *bytes = NULL, hex[65];
        size_t blen = 0;
        if (!tar || wh_read_file(tar, 64u << 20, &bytes, &blen) != 0 || !blen) {
            fprintf(stderr, "wh_peer: --send tar needs --tar FILE\n");
            return 2;
        }
        wh_sha256_hex(bytes, blen, hex);
        uint64_t off = 0;
        for (int tries = 0; off < blen && tries < 100; tries++) {
            wh_msg_t p = {0};
            p.type = WH_MSG_BLOB_PUT;
            p.blob_sha = hex;
            p.blob_off = off;
            p.blob_total = blen;
            p.content = (uint8_t *)bytes + off;
            p.content_len = blen - off < WH_WIRE_MAX_CHUNK ? blen - off : WH_WIRE_MAX_CHUNK;
            wh_wire_send(s, &p, 0);
            zmq_pollitem_t it = {s, 0, ZMQ_POLLIN, 0};
            wh_msg_t r = {0};
            if (zmq_poll(&it, 1, 10000) > 0 && wh_wire_recv(s, &r, 0) == 0 &&
                r.type == WH_MSG_BLOB) {
                off = r.blob_off;
                printf("BLOB held %llu code %d\n", (unsigned long long)off, (int)r.code);
                if (r.code)
                    off = blen + 1;
            }
            wh_msg_clear(&r);
        }
        free(bytes);
        send = "submit";
    }
    if (!strcmp(send, "hello")) {
        m.type = WH_MSG_HELLO;
        m.node_id = "wh_peer";
        m.slots = 1;
    } else if (!strcmp(send, "submit") && json && wh_read_file(json, 1 << 20, &text, &len) == 0) {
        m.type = WH_MSG_SUBMIT;
        m.json = text;
    } else if (!strcmp(send, "status")) {
        m.type = WH_MSG_STATUS_REQ;
    } else {
        fprintf(stderr, "wh_peer: bad --send '%s' (hello, submit --json FILE, status)\n", send);
        return 2;
    }
    wh_wire_send(s, &m, 0);
    free(text);
    int counts[16] = {0}, total = 0;
    uint64_t t0 = wh_now_ms(), hb = t0;
    while (wh_now_ms() - t0 < (uint64_t)wait_ms) {
        zmq_pollitem_t it = {s, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&it, 1, 100) > 0) {
            wh_msg_t r = {0};
            if (wh_wire_recv(s, &r, ZMQ_DONTWAIT) == 0 && r.type < 16) {
                counts[r.type]++;
                total++;
                if (r.type == WH_MSG_PROGRESS && r.final)
                    printf("final %d %s\n", (int)r.code, r.detail ? r.detail : "");
            }
            wh_msg_clear(&r);
        }
        if (m.type == WH_MSG_HELLO && wh_now_ms() - hb >= 500) {
            wh_msg_t h = {0};
            h.type = WH_MSG_HEARTBEAT;
            h.node_id = "wh_peer";
            wh_wire_send(s, &h, ZMQ_DONTWAIT);
            hb = wh_now_ms();
        }
    }
    static const char *names[] = {"NONE", "HELLO", "EVALUATE", "VERDICT", "CANCEL", "HEARTBEAT",
                                  "BYE", "SUBMIT", "STATUS_REQ", "STATUS", "PROGRESS"};
    for (int t = 0; t < 11; t++)
        if (counts[t])
            printf("%s %d\n", names[t], counts[t]);
    printf("total %d\n", total);
    zmq_close(s);
    zmq_ctx_term(zctx);
    return 0;
}
