"""The design canvas: a QGraphicsScene drawn over the document, and the view that zooms, pans and takes drops."""
