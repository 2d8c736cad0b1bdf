from vnetbench.cli.main import main

raise SystemExit(main())
