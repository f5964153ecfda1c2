/*
 * policy.c: what the student's object file may use and define.
 *
 * The student's kernel.cu runs inside the harness's process, so it could in
 * principle call cuBLAS, launch on a stream the timer does not see, or write
 * a fake record. nm lists what the object takes from elsewhere (undefined
 * symbols) and what it provides (defined ones); grader/allowed-symbols.txt
 * says which are fine, with a reason for each refusal. A raw system call in
 * host code (inline assembly) is refused as well, seen by objdump.
 *
 * This is a policy, not a sandbox: it stops the shortcuts a student might
 * take and every way of faking a result that the lab knows of, and the
 * grader's cross-checks of the record stand behind it.
 */
#include "grader.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

int grader_policy_read(const char *path, policy *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    snprintf(p->path, sizeof p->path, "%s", path);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    char line[1024];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        char *s = line + strspn(line, " \t");
        if (*s == '#' || *s == 0)
            continue;
        char kind[32], pattern[NAME_LEN];
        int used = 0;
        if (sscanf(s, "%31s %127s %n", kind, pattern, &used) < 2) {
            snprintf(err, errlen, "%s:%d: expected KIND PATTERN [REASON]", path, lineno);
            fclose(f);
            return -1;
        }
        if (p->nrules == (int)(sizeof p->rules / sizeof p->rules[0])) {
            snprintf(err, errlen, "%s:%d: too many rules", path, lineno);
            fclose(f);
            return -1;
        }
        policy_rule *r = &p->rules[p->nrules];
        if (!strcmp(kind, "allow") || !strcmp(kind, "deny")) {
            r->defined = 0;
        } else if (!strcmp(kind, "allow-defined") || !strcmp(kind, "deny-defined")) {
            r->defined = 1;
        } else {
            snprintf(err, errlen, "%s:%d: unknown kind '%s' (allow, deny, allow-defined, deny-defined)",
                     path, lineno, kind);
            fclose(f);
            return -1;
        }
        r->deny = !strncmp(kind, "deny", 4);
        strcpy(r->pattern, pattern);
        snprintf(r->reason, sizeof r->reason, "%s", s + used);
        if (r->deny && !r->reason[0]) {
            snprintf(err, errlen, "%s:%d: a deny rule needs a reason for the student", path, lineno);
            fclose(f);
            return -1;
        }
        p->nrules++;
    }
    fclose(f);
    return 0;
}

const policy_rule *grader_policy_match(const policy *p, const char *symbol, int defined)
{
    for (int i = 0; i < p->nrules; i++)
        if (p->rules[i].defined == defined && fnmatch(p->rules[i].pattern, symbol, 0) == 0)
            return &p->rules[i];
    return NULL;
}

/* Run a tool and return its whole output (NULL when it could not run or
 * failed). Tools are trusted, but their output still has a size limit. */
static char *tool_output(char *const argv[], int *ok)
{
    run_result r;
    grader_run_program(argv, -1, 60, 8u << 20, &r);
    *ok = r.started && r.exited && r.status == 0 && r.output_bytes <= (8u << 20);
    char *out = r.tail;
    r.tail = NULL;
    grader_run_result_free(&r);
    return out;
}

/* A C++ name as a person reads it ("std::thread::thread(...)"), or the name. */
static void demangle(const char *name, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s", name);
    if (strncmp(name, "_Z", 2))
        return;
    char copy[NAME_LEN * 2];
    snprintf(copy, sizeof copy, "%s", name);
    char *argv[] = {"c++filt", copy, NULL};
    int ok;
    char *text = tool_output(argv, &ok);
    if (ok && text && text[0]) {
        text[strcspn(text, "\n")] = 0;
        snprintf(out, outlen, "%s", text);
    }
    free(text);
}

/* 1 when the header declares a function called name: "name(" as a word. */
static int header_declares(const char *header_text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = header_text; (p = strstr(p, name)); p += n) {
        if (p > header_text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        const char *q = p + n;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q == '(')
            return 1;
    }
    return 0;
}

/* Append one refusal to msg: the first one in full, later ones by name. */
static void refuse(char *msg, size_t msglen, int *nrefused, const char *what, const char *name,
                   const char *reason)
{
    char shown[256];
    demangle(name, shown, sizeof shown);
    if (*nrefused == 0)
        snprintf(msg, msglen, "%s %s: %s", what, shown, reason);
    else if (*nrefused == 1)
        grader_appendf(msg, msglen, " (also refused: %s", shown);
    else if (*nrefused < 6)
        grader_appendf(msg, msglen, ", %s", shown);
    (*nrefused)++;
}

/* Look for a raw system call instruction in the object's host code.
 * objdump prints "   1c:\tsyscall": the mnemonic follows the first tab. */
static int has_raw_syscall(const char *object)
{
    static const char *const calls[] = {"syscall", "sysenter", "int    $0x80", "svc"};
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", object);
    char *argv[] = {"objdump", "-d", "--no-show-raw-insn", copy, NULL};
    int ok;
    char *text = tool_output(argv, &ok);
    int found = 0;
    char *save = NULL;
    for (char *line = ok && text ? strtok_r(text, "\n", &save) : NULL; line && !found;
         line = strtok_r(NULL, "\n", &save)) {
        char *insn = strchr(line, '\t');
        if (!insn)
            continue;
        insn++;
        for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
            size_t n = strlen(calls[i]);
            if (!strncmp(insn, calls[i], n) && (insn[n] == 0 || isspace((unsigned char)insn[n])))
                found = 1;
        }
    }
    free(text);
    return found;
}

int grader_policy_check(const policy *p, const char *object, const char *contract_header, char *msg,
                 size_t msglen)
{
    msg[0] = 0;
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", object);
    int ok;
    /* nm and objdump read an object of GCC's link-time bytecode through
     * its LTO plugin: nothing reads the object before the lab's own ELF
     * reader said it holds only what a CUDA compile makes (judge/objcheck.c;
     * the build's rule asked it too) */
    char objcheck[] = "build/confine/objcheck", label[] = "the object";
    char *check_argv[] = {objcheck, "--label", label, copy, NULL};
    char *said = tool_output(check_argv, &ok);
    if (!ok) {
        snprintf(msg, msglen, "%s", said && said[0] ? said : "could not be read by build/confine/objcheck");
        msg[strcspn(msg, "\n")] = 0;
        free(said);
        return 1;
    }
    free(said);
    char *argv[] = {"nm", "-P", "-g", copy, NULL};
    char *text = tool_output(argv, &ok);
    if (!ok || !text) {
        snprintf(msg, msglen, "nm could not read %s", object);
        free(text);
        return -1;
    }
    char *header = contract_header ? lab_read_file(contract_header, 1u << 20) : NULL;
    int nrefused = 0;
    /* two passes, so that the message first names a symbol refused for a
     * reason of its own (a thread, cuBLAS, a stream), and only then the ones
     * that are merely not on the allowlist (often their side effects) */
    for (int pass = 0; pass < 2; pass++) {
        for (char *line = text; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
            char name[NAME_LEN * 4], type[8];
            if (sscanf(line, "%511s %7s", name, type) != 2)
                continue;
            char t = type[0];
            int undefined = t == 'U' || t == 'w' || t == 'v';
            const policy_rule *r = grader_policy_match(p, name, !undefined);
            if (undefined) {
                if (!r && pass == 1)
                    refuse(msg, msglen, &nrefused, "uses", name,
                           "not one of the calls a kernel launcher needs (the allowed ones are listed in "
                           "grader/allowed-symbols.txt)");
                else if (r && r->deny && pass == 0)
                    refuse(msg, msglen, &nrefused, "uses", name, r->reason);
                continue;
            }
            if (r) {
                if (r->deny && pass == 0)
                    refuse(msg, msglen, &nrefused, "defines", name, r->reason);
                continue;
            }
            /* C++ names (the student's own kernels and helpers) are fine; a
             * function with a C name could stand in for a library function the
             * harness calls, so only the contract's entry point may have one */
            int function = t == 'T' || t == 'W' || t == 'i';
            if (pass == 0 && strncmp(name, "_Z", 2) && function &&
                !(header && header_declares(header, name)))
                refuse(msg, msglen, &nrefused, "defines", name,
                       "a function with C linkage (extern \"C\") that the contract does not declare; "
                       "drop extern \"C\" or make it static");
        }
    }
    free(text);
    free(header);
    if (nrefused > 1)
        grader_appendf(msg, msglen, "%s)", nrefused > 6 ? ", ..." : "");
    if (nrefused == 0 && has_raw_syscall(object)) {
        snprintf(msg, msglen, "contains a raw system call instruction in host code: "
                              "only the harness talks to the operating system");
        nrefused = 1;
    }
    return nrefused ? 1 : 0;
}
