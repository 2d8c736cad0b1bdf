"""Validation's checks, one module per part of the design; ``model.validate`` runs them all."""
