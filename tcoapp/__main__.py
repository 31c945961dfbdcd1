try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl+C while the command line itself loads: no traceback
    raise SystemExit(130)

raise SystemExit(main())
