/* pin_name.h — what may name a pin (pin_name.c); kiln_pin_name itself is public (kiln/pin.h). */
#ifndef KL_LIB_PIN_NAME_H
#define KL_LIB_PIN_NAME_H
#include <stddef.h>

/* name for a message into buf: bytes outside printable ASCII as \xNN, cut at 120 bytes. */
const char *kl_pin_shown(const char *name, char *buf, size_t size);
/* Why name cannot name a pin (it could leave its directory, or no file has it), or NULL. */
const char *kl_pin_name_why(const char *name);

#endif
