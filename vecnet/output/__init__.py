"""Stage 8, the output for people: any earlier stage's objects in; text, LaTeX, Graphviz
diagrams, pictures, animations and self-contained HTML reports out."""
