"""A differential fuzzer over the language of block pointers (issue 34).

* `grammar`: random, valid block-pointer kernels with their launches, drawn from a sequence of choices
  (`Choices`) so that a failure can be shrunk by editing the choices (`shrink`).
* `launch`: the sentinel-padded buffers and the launch, the same on Triton 3.8 (in process) and 3.9
  (a subprocess that stays up for a whole campaign: `runner.Worker39`).
* `runner`: every kernel migrated in every policy, run in the interpreter, compared bit for bit.
* `compiled`: the original and migrated kernels compiled for sm_90 on the CPU (what the interpreter accepts
  and compilers reject; `campaign.py --compile`).
* `invalid`: kernels Triton rejects; the codemod must refuse them (or keep them rejected), never fail inside.
* `campaign`: the long run and its figures (`python tests/fuzz/campaign.py --help`).
"""
