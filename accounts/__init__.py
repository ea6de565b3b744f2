"""Users: registration, tokens, ``/me`` and the user admin.

``accounts`` sits above ``games`` and ``notifications`` (PRODUCT.md): it may
call their services and selectors; neither of them imports it.
"""
