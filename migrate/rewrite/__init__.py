"""The rewrite: the analysis' edits applied to the libcst tree (apply), the lines it removed and the code it
left dead cleaned up (blocks, dead_code), laid out to the project's line length (wrap), and checked to
bind every name it reads (unbound)."""
