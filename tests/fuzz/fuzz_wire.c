/*
 * fuzz_wire — libFuzzer target for the protobuf decode path (wh_msg_decode).
 * Any byte string must decode or be refused without a crash, leak or
 * undefined behaviour; a message that decodes must encode again, and that
 * encoding must decode to a message that encodes to the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wh_msg_t m;
    char *err = NULL;
    if (wh_msg_decode(data, size, &m, &err) != 0) {
        if (!err)
            abort(); /* a refusal always says why */
        free(err);
        return 0;
    }
    uint8_t *b1 = NULL, *b2 = NULL;
    size_t l1 = 0, l2 = 0;
    if (wh_msg_encode(&m, &b1, &l1) != 0)
        abort(); /* what the receiver accepts, the sender can send */
    wh_msg_t m2;
    if (wh_msg_decode(b1, l1, &m2, NULL) != 0 || wh_msg_encode(&m2, &b2, &l2) != 0)
        abort();
    if (l1 != l2 || memcmp(b1, b2, l1) != 0)
        abort(); /* the round trip is stable */
    free(b1);
    free(b2);
    wh_msg_clear(&m);
    wh_msg_clear(&m2);
    return 0;
}
