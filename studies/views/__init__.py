"""Pages of the studies app: the designer, the participant flow, the monitor, analysis and exports."""
