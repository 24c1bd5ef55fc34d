"""Files made of charts: the self-contained HTML report (`report`, `ipu_nb.save_report`) and one chart saved
as PNG, SVG, PDF, HTML or JSON (`export`, `ipu_nb.charts.save`).

The presentation layer's top: it draws on the charts (`ipu_nb._charts`) and on the
notebook reprs of the objects it is given, whose escaping lives in `ipu_nb._markup`.
"""
