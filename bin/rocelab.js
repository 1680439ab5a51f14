#!/usr/bin/env node
import "../dist/bundle/main/cli.js";
