"""The drawing kit: plotly's wire format, the look, labels, heatmaps, grids, charts, lines, tables,
the head view, sections."""
