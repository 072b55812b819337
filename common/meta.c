// SPDX-License-Identifier: BSD-2-Clause
/* The detail of a `meta` row: see meta.h. */
#include <string.h>

#include "common/meta.h"

static const char *const key_names[META_NKEYS] = {
	"image", "runtime", "id", "name", "pod", "namespace", "pod_uid", "container", "type",
	"qos", "sandbox_id",
};

const char *meta_key_name(enum meta_key k)
{
	return (unsigned)k < META_NKEYS ? key_names[k] : NULL;
}

int meta_parse(const char *s, size_t n, struct meta *m)
{
	struct detail_field f;
	size_t i = 0;
	int k, r;

	memset(m, 0, sizeof(*m));
	while ((r = detail_field_next(s, n, &i, &f)) > 0) {
		for (k = 0; k < META_NKEYS; k++)
			if (strlen(key_names[k]) == f.klen && !memcmp(key_names[k], f.key, f.klen))
				break;
		if (k == META_NKEYS)
			continue;
		if (!f.str || m->v[k].s)
			return -1;
		m->v[k] = f.val;
	}
	return r;
}

size_t meta_format(const struct meta *m, char *out, size_t cap)
{
	size_t len = 0;
	int k;

	for (k = 0; k < META_NKEYS; k++)
		if (m->v[k].s && !detail_put_str(out, cap, &len, key_names[k], m->v[k]))
			return 0;
	return len;
}

bool meta_is_sandbox(const struct meta *m)
{
	const struct sched_str *t = &m->v[META_TYPE];

	return t->s && t->n == 7 && memcmp(t->s, "sandbox", 7) == 0;
}
