"""The shipped variants and house rules, as the API lists them."""
