/* SPDX-License-Identifier: BSD-3-Clause */
/* consumer.c: the ordered list of what consumes finished RPC messages. */
#include "consumer.h"

#include <string.h>

#include "dissector.h"

_Static_assert(CONSUMER_PHASES == OPI_NOT_EVALUATED + 1, "a list per operation phase");

void
consumers_init(struct consumers *l)
{
    memset(l, 0, sizeof *l);
}

bool
consumers_add(struct consumers *l, const char *name, consumer_fn *fn, consumer_op_fn *op,
              void *self)
{
    unsigned p;

    if (l->n >= CONSUMERS_MAX || !fn)
        return false;
    l->c[l->n].name = name;
    l->c[l->n].fn = fn;
    l->c[l->n].op = op;
    l->c[l->n].self = self;
    for (p = 0; op && p < CONSUMER_PHASES; p++)
        l->op_ix[p][l->nop[p]++] = (unsigned char)l->n;
    l->n++;
    return true;
}

void
consumers_op_phases(struct consumers *l, unsigned phases)
{
    unsigned p;

    for (p = 0; l->n && p < CONSUMER_PHASES; p++)
        if (!(phases >> p & 1) && l->nop[p] && l->op_ix[p][l->nop[p] - 1] == l->n - 1)
            l->nop[p]--;
}

void
consumers_emit(const struct consumers *l, const struct op_event *ev)
{
    unsigned i;

    for (i = 0; i < l->n; i++)
        l->c[i].fn(l->c[i].self, ev);
}

void
consumers_emit_op(const struct consumers *l, const struct op_event *msg, const struct op_item *op)
{
    unsigned i, p = op->phase;

    for (i = 0; p < CONSUMER_PHASES && i < l->nop[p]; i++) {
        const struct consumer *c = &l->c[l->op_ix[p][i]];

        c->op(c->self, msg, op);
    }
}
