import sys
from pathlib import Path

# The reference evaluator and helpers live beside the tests.
sys.path.insert(0, str(Path(__file__).parent))
