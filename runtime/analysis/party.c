/* party: reference fights of more than two creatures (party.h). */
#include "runtime/analysis/party.h"

#include <string.h>

#include "runtime/api/api_internal.h"
#include "runtime/base/mem.h"

int party_side(const party_fight *pf, const char *name)
{
    for (size_t k = 0; k < pf->nsides; k++)
        if (!strcmp(pf->side[k], name))
            return (int)k;
    return -1;
}

/* The side's index, added when new; -1 past PARTY_MOST_SIDES (the rest
   are not reported), -2 out of memory. */
static int add_side(party_fight *pf, const char *name)
{
    int k = party_side(pf, name);
    if (k >= 0 || pf->nsides == PARTY_MOST_SIDES)
        return k;
    pf->side[pf->nsides] = mem_strndup(name, strlen(name));
    return pf->side[pf->nsides] ? (int)pf->nsides++ : -2;
}

bool party_play(party_fight *pf, fray *parent, const char *path, const char *system_file, const char *uses,
                const fray_diff_options *o)
{
    *pf = (party_fight){0};
    fray_sim_options so = {
        .runs = o->runs ? o->runs : 2000, .threads = o->threads, .system_path = system_file, .system_use = uses};
    fray_sim_result *r;
    if (fray_sim(parent, path, &so, &r) != FRAY_OK)
        return false;
    pf->runs = r->runs;
    int by = o->rounds ? o->rounds : 3;
    /* every creature's side, in the order they are made (a side that won
       no fight too), then any that won without a side: a creature alone */
    bool ok = true;
    for (size_t c = 0; c < r->ncreatures && ok; c++)
        if (r->creatures[c].side)
            ok = add_side(pf, r->creatures[c].side) != -2;
    for (size_t s = 0; s < r->nsides && ok; s++) {
        int k = add_side(pf, r->sides[s].name);
        ok = k != -2;
        if (k < 0)
            continue;
        pf->wins[k] = r->sides[s].wins;
        for (size_t n = 0; n < r->sides[s].nrounds && (int)n <= by; n++)
            pf->by[k] += r->sides[s].rounds[n];
    }
    for (size_t c = 0; c < r->ncreatures && ok; c++) {
        int k = r->creatures[c].side ? party_side(pf, r->creatures[c].side) : -1;
        if (k >= 0)
            pf->dealt[k] += r->creatures[c].dealt;
    }
    for (size_t k = 0; k < r->nrounds; k++)
        pf->rounds += (uint64_t)k * r->rounds[k];
    fray_sim_free(r);
    if (!ok)
        diag_report(&parent->sink, DIAG_ERROR, NULL, (span){0}, "%s: out of memory", path);
    return ok;
}

void party_free(party_fight *pf)
{
    for (size_t k = 0; k < pf->nsides; k++)
        mem_strfree(pf->side[k]);
    pf->nsides = 0;
}

double party_damage_per_round(const party_fight *pf, size_t side)
{
    return pf->rounds ? (double)pf->dealt[side] / (double)pf->rounds : 0;
}
