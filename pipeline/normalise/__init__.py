"""Shared cleaning every source needs: text, dice, weapon-ability vocabulary."""
