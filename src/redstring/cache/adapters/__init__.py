"""Cache adapters. Every ``redis`` import stays in this directory."""
