"""HTML output: notebook reprs (`reprs`), escaping and label rules for untrusted strings (`sanitize`),
and the self-contained HTML report (`report`)."""
