"""LlmProvider adapters. Every ``langchain*`` import stays in this directory."""
