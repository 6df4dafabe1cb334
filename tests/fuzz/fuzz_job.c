/*
 * fuzz_job — libFuzzer target for the job JSON `whittle submit` and the
 * coordinator read (wh_job_from_json, wh_job_to_json, wh_job_validate).
 * A job that parses must serialize, and its serialization must parse to a
 * job that serializes the same. Validation runs with --reference dropped:
 * resolving a git revision runs git, which a fuzzer must not.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *s_roundtrip(const char *json)
{
    json_t *o = json_loads(json, 0, NULL);
    if (!o)
        abort(); /* wh_job_to_json wrote JSON jansson cannot read */
    wh_job_t j;
    wh_job_init(&j);
    char *err = NULL;
    if (wh_job_from_json(&j, o, &err) != 0)
        abort(); /* a serialized job must read back */
    char *s = wh_job_to_json(&j);
    wh_job_clear(&j);
    json_decref(o);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *o = json_loadb((const char *)data, size, 0, NULL);
    if (!o)
        return 0;
    wh_job_t j;
    wh_job_init(&j);
    char *err = NULL;
    if (wh_job_from_json(&j, o, &err) != 0) {
        if (!err)
            abort(); /* a refusal always says why */
        free(err);
        goto out;
    }
    char *s1 = wh_job_to_json(&j);
    if (!s1)
        abort();
    char *s2 = s_roundtrip(s1);
    if (!s2 || strcmp(s1, s2) != 0)
        abort();
    free(s1);
    free(s2);
    free(j.reference);
    j.reference = NULL;
    j.keep_fault = 0;
    if (wh_job_validate(&j, &err) != 0) {
        if (!err)
            abort();
        free(err);
    }
out:
    wh_job_clear(&j);
    json_decref(o);
    return 0;
}
