/* api_state: the state of play as JSON, and the explanation of the last
 * command, for programs that embed Fray (bots, virtual tabletops). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/api/api_internal.h"
#include "runtime/combat/combat.h"
#include "runtime/combat/tracks.h"
#include "runtime/base/mem.h"
#include "runtime/core/rules.h"

/* A growing text; an allocation failure sets oom and stops it. */
typedef struct jbuf {
    char *s;
    size_t len, cap;
    bool oom;
} jbuf;

static void jb_raw(jbuf *b, const char *text, size_t n)
{
    if (b->oom)
        return;
    char *grown = mem_grow(b->s, 1, &b->cap, b->len + n + 1);
    if (!grown) {
        b->oom = true;
        return;
    }
    b->s = grown;
    memcpy(b->s + b->len, text, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void jb_put(jbuf *b, const char *text)
{
    jb_raw(b, text, strlen(text));
}

static void jb_str(jbuf *b, const char *text)
{
    jb_put(b, "\"");
    for (const char *s = text; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            jb_raw(b, esc, 2);
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            jb_put(b, esc);
        } else
            jb_raw(b, s, 1);
    }
    jb_put(b, "\"");
}

/* A whole number as a JSON number; anything else as its text. */
static void jb_value(jbuf *b, vm *v, value x)
{
    if (x.type == V_INT) {
        char text[32];
        snprintf(text, sizeof text, "%" PRId64, x.num);
        jb_put(b, text);
    } else if (x.type == V_BOOL) {
        jb_put(b, x.num ? "true" : "false");
    } else if (x.type == V_NIL) {
        jb_put(b, "null");
    } else {
        text_buf text;
        text_init(&text);
        vm_format_text(v, x, &text);
        jb_str(b, text.s);
        text_free(&text);
    }
}

typedef struct effect_list {
    jbuf *b;
    bool first;
    vm *v;
    bool players; /* leave out what is shared with a hidden creature */
} effect_list;

static bool hidden_name(vm *v, const char *name)
{
    int c = world_find_creature(v, name);
    return c >= 0 && v->world->creatures[c].hidden;
}

static void on_effect(void *user, const char *kind, const char *name, const char *partner, const char *lasts)
{
    effect_list *l = user;
    if (l->players && partner && hidden_name(l->v, partner))
        return;
    jb_put(l->b, l->first ? "{\"kind\": " : ", {\"kind\": ");
    jb_str(l->b, kind);
    jb_put(l->b, ", \"name\": ");
    jb_str(l->b, name);
    if (partner) {
        jb_put(l->b, ", \"with\": ");
        jb_str(l->b, partner);
    }
    jb_put(l->b, ", \"lasts\": ");
    jb_str(l->b, lasts);
    jb_put(l->b, "}");
    l->first = false;
}

/* `, "tags": [...]` when the holder has any: name, free uses, what is
   left of its duration. */
static void tags_json(jbuf *b, vm *v, uint8_t kind, int32_t holder)
{
    if (!tags_any_on(v, kind, holder))
        return;
    jb_put(b, ", \"tags\": [");
    bool first = true;
    text_buf lasts;
    text_init(&lasts);
    for (size_t i = 0; i < v->world->ntags; i++) {
        const tag *t = &v->world->tags[i];
        if (t->kind != kind || t->holder != holder)
            continue;
        char uses[32];
        snprintf(uses, sizeof uses, ", \"uses\": %d, \"lasts\": ", t->uses);
        jb_put(b, first ? "{\"name\": " : ", {\"name\": ");
        jb_str(b, t->name);
        jb_put(b, uses);
        text_clear(&lasts);
        jb_str(b, t->effect >= 0 ? effects_lasts_text(v, t->effect, &lasts) : "until removed");
        jb_put(b, "}");
        first = false;
    }
    text_free(&lasts);
    jb_put(b, "]");
}

/* Reads as a display reads (vm_peek_begin): a formula that reads a
   ruling asks no one, and nothing is rolled or noted, so that looking at
   the state never changes it nor puts a question to the GM. False, the
   error cleared, when it cannot be read so. */
static bool peek_stat(vm *v, int c, int decl_index, value *x)
{
    bool began = v->peek_depth == 0 && vm_peek_begin(v, (span){0});
    bool ok = (began || v->peek_depth) && world_get_stat(v, c, decl_index, x);
    if (began)
        vm_peek_end(v);
    if (!ok)
        vm_clear_error(v);
    return ok;
}

static bool peek_out(vm *v, int c, bool *out)
{
    bool began = v->peek_depth == 0 && vm_peek_begin(v, (span){0});
    bool ok = (began || v->peek_depth) && encounter_out(v, c, out, (span){0});
    if (began)
        vm_peek_end(v);
    if (!ok)
        vm_clear_error(v);
    return ok;
}

/* Every stat a creature was given, and every tracked one (for the
   players, those not hidden); one that cannot be read as a display
   reads it (it would roll) is null. */
static bool creature_stats(jbuf *b, vm *v, int c, bool players)
{
    bool first = true;
    jb_put(b, "{");
    for (size_t i = 0; i < v->p->ndecls; i++) {
        if (!world_stat_shown(v, c, (int)i) || (players && hidden_stat(v, c, (int)i)))
            continue;
        const decl *d = &v->p->decls[i];
        value x;
        bool read = peek_stat(v, c, (int)i, &x);
        jb_put(b, first ? "" : ", ");
        jb_str(b, program_string(v->p, d->name));
        jb_put(b, ": ");
        if (read)
            jb_value(b, v, x);
        else
            jb_put(b, "null");
        first = false;
    }
    jb_put(b, "}");
    return true;
}

/* Each track's boxes: its value, whether it is marked, and its name. */
static bool creature_tracks(jbuf *b, vm *v, int c)
{
    jb_put(b, ", \"tracks\": {");
    for (int t = 0; t < v->r->ntracks; t++) {
        int64_t vals[TRACK_MAX_BOXES];
        int n;
        if (!track_boxes(v, c, t, v->r->tracks[t].from.where, vals, &n))
            return false;
        jb_put(b, t ? ", " : "");
        jb_str(b, program_string(v->p, v->r->tracks[t].name));
        jb_put(b, ": [");
        for (int i = 0; i < n; i++) {
            value name;
            bool marked = track_box_marked(v, c, t, i, &name);
            char text[64];
            snprintf(text, sizeof text, "%s{\"value\": %" PRId64 ", \"marked\": %s", i ? ", " : "", vals[i],
                     marked ? "true" : "false");
            jb_put(b, text);
            if (name.type != V_NIL) {
                jb_put(b, ", \"name\": ");
                jb_value(b, v, name);
            }
            jb_put(b, "}");
        }
        jb_put(b, "]");
    }
    jb_put(b, "}");
    return true;
}

static bool creature_json(jbuf *b, vm *v, int c, bool players)
{
    const creature *cr = &v->world->creatures[c];
    char text[64];
    jb_put(b, "{\"name\": ");
    jb_str(b, cr->name);
    jb_put(b, ", \"title\": ");
    if (cr->display >= 0)
        jb_str(b, program_string(v->p, cr->display));
    else
        jb_put(b, "null");
    jb_put(b, ", \"side\": ");
    if (cr->side >= 0)
        jb_str(b, program_string(v->p, v->r->sides[cr->side]));
    else
        jb_put(b, "null");
    bool out = false;
    if (cr->in_play && !peek_out(v, c, &out))
        out = false; /* as far as can be told without asking */
    jb_put(b, cr->in_play ? ", \"in_play\": true" : ", \"in_play\": false");
    jb_put(b, out ? ", \"out\": true" : ", \"out\": false");
    jb_put(b, cr->delaying ? ", \"delaying\": true" : ", \"delaying\": false");
    jb_put(b, ", \"square\": ");
    if (cr->placed) {
        square_format(cr->x, cr->y, text, sizeof text);
        jb_str(b, text);
    } else
        jb_put(b, "null");
    jb_put(b, ", \"zone\": ");
    if (cr->zone >= 0)
        jb_str(b, program_string(v->p, cr->zone));
    else
        jb_put(b, "null");
    if (!players && (cr->hidden || cr->nhidden_stats)) {
        jb_put(b, cr->hidden ? ", \"hidden\": true, \"hidden_stats\": [" : ", \"hidden_stats\": [");
        for (int i = 0; i < cr->nhidden_stats; i++) {
            jb_put(b, i ? ", " : "");
            jb_str(b, program_string(v->p, v->p->decls[cr->hidden_stats[i]].name));
        }
        jb_put(b, "]");
    }
    jb_put(b, ", \"stats\": ");
    if (!creature_stats(b, v, c, players))
        return false;
    if (v->r->ntracks && !creature_tracks(b, v, c))
        return false;
    jb_put(b, ", \"effects\": [");
    effect_list l = {.b = b, .first = true, .v = v, .players = players};
    effects_each(v, c, on_effect, &l);
    jb_put(b, "]");
    tags_json(b, v, TAG_ON_CREATURE, c);
    jb_put(b, "}");
    return true;
}

static bool state_json(fray *f, jbuf *b, bool players)
{
    vm *v = f->v;
    if (!combat_sync(v))
        return false;
    const combat *cb = &v->world->cb;
    const program *p = f->p;
    jb_put(b, "{\"system\": ");
    if (p->system_name >= 0)
        jb_str(b, program_string(p, p->system_name));
    else
        jb_put(b, "null");
    char text[64];
    snprintf(text, sizeof text,
             ", \"encounter\": {\"active\": %s, \"round\": %d, \"turn\": ", cb->active ? "true" : "false", cb->round);
    jb_put(b, text);
    int acting = encounter_acting(v);
    if (acting >= 0 && cb->active && !(players && v->world->creatures[acting].hidden))
        jb_str(b, v->world->creatures[acting].name);
    else
        jb_put(b, "null");
    jb_put(b, ", \"phase\": ");
    if (cb->active && cb->phase >= 0 && cb->phase < v->r->nphases)
        jb_str(b, program_string(p, v->r->phases[cb->phase].name));
    else
        jb_put(b, "null");
    jb_put(b, ", \"order\": [");
    bool first = true;
    for (int i = 0; cb->active && cb->ordered && i < cb->norder; i++) {
        const entry *e = &cb->order[i];
        if (players && e->creature >= 0 && v->world->creatures[e->creature].hidden)
            continue;
        jb_put(b, first ? "{\"name\": " : ", {\"name\": ");
        first = false;
        jb_str(b, e->creature >= 0 ? v->world->creatures[e->creature].name : program_string(p, v->r->sides[e->side]));
        jb_put(b, e->creature >= 0 ? ", \"side\": false" : ", \"side\": true");
        jb_put(b, ", \"score\": ");
        jb_value(b, v, e->score);
        jb_put(b, "}");
    }
    jb_put(b, "]");
    tags_json(b, v, TAG_ON_ENCOUNTER, 0);
    jb_put(b, "}, \"creatures\": [");
    first = true;
    for (size_t c = 0; c < v->world->ncreatures; c++) {
        if (v->world->creatures[c].gone ||
            (players && v->world->creatures[c].hidden)) /* out of the game, or not theirs to see */
            continue;
        jb_put(b, first ? "\n  " : ",\n  ");
        first = false;
        if (!creature_json(b, v, (int)c, players))
            return false;
    }
    jb_put(b, "]}");
    return !b->oom;
}

fray_status fray_state(fray *f, fray_output_fn fn, void *user)
{
    return fray_state_view(f, FRAY_VIEW_GM, fn, user);
}

fray_status fray_state_view(fray *f, fray_view view, fray_output_fn fn, void *user)
{
    api_use(f);
    jbuf b = {0};
    bool ok = state_json(f, &b, view == FRAY_VIEW_PLAYERS);
    if (ok)
        fn(user, b.s);
    if (b.s)
        mem_free(b.s, b.cap);
    if (!ok && f->v->failed)
        return api_runtime_failure(f);
    return ok ? FRAY_OK : FRAY_ERR_RULES;
}

fray_status fray_explain(fray *f, fray_output_fn fn, void *user)
{
    api_use(f);
    fray_output_fn saved = f->on_output;
    void *saved_user = f->output_user;
    f->on_output = fn;
    f->output_user = user;
    combat_explain(f->v);
    f->on_output = saved;
    f->output_user = saved_user;
    return FRAY_OK;
}

void fray_transcript(fray *f, fray_view view, fray_line_fn fn, void *user)
{
    const combat *cb = &f->v->world->cb;
    for (int i = 0; i < cb->nlog; i++) {
        if (COMBAT_LOG_AT(cb, i)->detail)
            continue;
        fray_line line = {COMBAT_LOG_AT(cb, i)->text, combat_log_hidden(f->v, i)};
        bool shown = view == FRAY_VIEW_PLAYERS ? !line.hidden : !COMBAT_LOG_AT(cb, i)->players;
        if (shown)
            fn(user, &line);
    }
}

bool fray_is_hidden(fray *f, const char *name)
{
    return hidden_name(f->v, name);
}
