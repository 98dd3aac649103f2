"""Everything a person reads: terminal, Markdown, HTML and plots (``rich``, ``matplotlib``).

One number formatter (``format.fmt``) and one worst-case order (``views.ordered_cases``).
"""
