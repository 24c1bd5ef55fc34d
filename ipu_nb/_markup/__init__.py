"""HTML and label text from untrusted profile strings, at the bottom of the layers so every repr can use it.

`sanitize` holds the escaping and label rules (HTML, JSON inside a script, Vega-Lite specs);
`tables` the summary lines and tables the notebook reprs of profiles, query results,
comparisons and findings are made of. Reports (`ipu_nb._report`) build on both.
"""
