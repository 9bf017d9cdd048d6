"""Renderers: diagnostics -> text for people, JSON for programs."""
