// RUN: not tile-opt %s -convert-tile-to-gpu=shared-alignment=24 2>&1 | FileCheck %s

// CHECK: error: expected a power-of-two shared-alignment, got 24
module {
}
