"""The local Spark session of the Spark test modules: two cores, quiet, a JVM that starts fast."""

from __future__ import annotations

from typing import Any


def start_local_spark() -> Any:
    """Start (or get) the local session of two cores the Spark tests run on."""
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[2]")
        .appName("scorekit-tests")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.log.level", "ERROR")
        # a JVM that lives for one test module: its quick compiler only, one garbage collector
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .getOrCreate()
    )
