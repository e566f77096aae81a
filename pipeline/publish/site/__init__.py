"""The offline explorer published in every release (`site/`): static pages, no request to any host.

How it is built and what each page shows: docs/explorer.md.
"""
