"""`tuner cache ...`: inspect, export, import and clear the tuning cache."""
import click


@click.group("cache")
def cache_group():
    """Inspect, export, import and clear the tuning cache."""
