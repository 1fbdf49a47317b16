/* opfdep: a tiny shared library that opf_op_needdep links against;
 * test/components.sh deletes it again so that the component cannot load. */
__attribute__((visibility("default"))) int opfdep_answer(void);
int opfdep_answer(void) { return 42; }
