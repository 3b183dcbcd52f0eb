"""Files in and out: videos and frame folders, option files, output names, atomic writes."""
