/* btf_ksyms.c — the kernel symbols' BTF, as clang writes `extern const struct rq runqueues
 * __ksym;` and `extern const void NAME __ksym;`: a VAR of extern linkage on a CONST of the
 * type (a projection of the kernel's; void for a typeless one), listed by the DATASEC
 * ".ksyms" (size 0, each entry at offset 0 with its type's size, 1 for void). libbpf turns
 * them into 4-byte ints of an allocated section before load, with the first 32-bit INT the
 * BTF has: one is made here. Their names are undefined ELF symbols, which no map, function or
 * global variable may share. */
#include "btf_internal.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int by_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* A name two symbols have, or NULL: the kernel symbols among every ELF symbol's name. */
static int clash(struct bb *b, const char **dup)
{
	const struct kl_obj *obj = b->obj;
	uint32_t n = obj->nksyms + obj->nmaps + obj->nfuncs + obj->nglobals + 1, k = 0;
	const char **all = malloc(n * sizeof(*all));
	*dup = NULL;
	if (!all)
		return bb_fail(b, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < obj->nksyms; i++)
		all[k++] = obj->ksyms[i].name;
	for (uint32_t i = 0; i < obj->nmaps; i++)
		all[k++] = obj->maps[i].name;
	for (uint32_t i = 0; i < obj->nfuncs; i++)
		all[k++] = obj->funcs[i].name;
	for (uint32_t i = 0; i < obj->nglobals; i++)
		all[k++] = obj->globals[i].name;
	all[k++] = "_license";
	qsort(all, k, sizeof(*all), by_str);
	for (uint32_t i = 1; i < k && !*dup; i++)
		if (!strcmp(all[i], all[i - 1]))
			*dup = all[i];
	free(all);
	return 0;
}

int bb_add_ksyms(struct bb *b)
{
	const struct kl_obj *obj = b->obj;
	if (!obj->nksyms)
		return 0;
	const char *dup;
	int err = clash(b, &dup);
	if (err || dup)
		return err ? err : bb_fail(b, EINVAL, "the kernel symbol %s and another definition share a name", dup);
	int *vars = calloc(obj->nksyms, sizeof(*vars));
	if (!vars)
		return bb_fail(b, ENOMEM, "out of memory");
	err = bb_type_id(b, kl_type_builtin("int"));
	for (uint32_t i = 0; i < obj->nksyms && err >= 0; i++) {
		const struct kl_ksym *k = &obj->ksyms[i];
		if (!k->name || !*k->name) {
			err = bb_fail(b, EINVAL, "kernel symbol #%u has no name", i);
			break;
		}
		int id = k->type ? bb_type_id(b, k->type) : 0;
		id = id < 0 ? id : bb_check(b, btf__add_const(b->btf, id), "CONST");
		err = vars[i] = id < 0 ? id : bb_check(b, btf__add_var(b->btf, k->name, BTF_VAR_GLOBAL_EXTERN, id), "ksym VAR");
	}
	err = err < 0 ? err : bb_check(b, btf__add_datasec(b->btf, ".ksyms", 0), "DATASEC .ksyms");
	for (uint32_t i = 0; i < obj->nksyms && err >= 0; i++)
		err = bb_check(b, btf__add_datasec_var_info(b->btf, vars[i], 0, obj->ksyms[i].type ? obj->ksyms[i].type->size : 1),
			       ".ksyms entry");
	free(vars);
	return err < 0 ? err : 0;
}
