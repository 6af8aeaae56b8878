/* SPDX-License-Identifier: BSD-3-Clause */
/* consumer.c: the ordered list of what consumes finished RPC messages. */
#include "consumer.h"

#include <string.h>

void
consumers_init(struct consumers *l)
{
    memset(l, 0, sizeof *l);
}

bool
consumers_add(struct consumers *l, const char *name, consumer_fn *fn, consumer_op_fn *op,
              void *self)
{
    if (l->n >= CONSUMERS_MAX || !fn)
        return false;
    l->c[l->n].name = name;
    l->c[l->n].fn = fn;
    l->c[l->n].op = op;
    l->c[l->n].self = self;
    if (op)
        l->op_ix[l->nop++] = (unsigned char)l->n;
    l->n++;
    return true;
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
    unsigned i;

    for (i = 0; i < l->nop; i++) {
        const struct consumer *c = &l->c[l->op_ix[i]];

        c->op(c->self, msg, op);
    }
}
