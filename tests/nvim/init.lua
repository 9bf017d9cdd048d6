-- Headless Neovim (0.7+) with the nki-verify language server attached to one file.
-- Environment: NKI_LSP_CMD (JSON list: the server command), NKI_FILE (the file to open), NKI_OUT (the JSON
-- report to write: the buffer's diagnostics and a hover).  Neovim 0.7 has no vim.lsp.start: use
-- start_client + buf_attach_client, as a user's config for that version would.
local cmd = vim.fn.json_decode(os.getenv("NKI_LSP_CMD"))
local file = os.getenv("NKI_FILE")
local out = os.getenv("NKI_OUT")
local report = { diagnostics = {}, hover = vim.NIL, error = vim.NIL }

local function finish()
  local fh = io.open(out, "w")
  fh:write(vim.fn.json_encode(report))
  fh:close()
  vim.cmd("qall!")
end

local ok, err = pcall(function()
  local client_id = vim.lsp.start_client({
    name = "nki-verify",
    cmd = cmd,
    root_dir = vim.fn.fnamemodify(file, ":p:h"),
  })
  assert(client_id, "the language server did not start")
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(bufnr, client_id)
  -- vim.wait runs the event loop (LSP messages included) until the diagnostics arrive
  local arrived = vim.wait(90000, function() return #vim.diagnostic.get(bufnr) > 0 end, 20)
  assert(arrived, "no diagnostics arrived")
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(report.diagnostics, {
      lnum = d.lnum, col = d.col, severity = d.severity, message = d.message,
      source = d.source, code = d.user_data and d.user_data.lsp and d.user_data.lsp.code or vim.NIL,
    })
  end
  local first = vim.diagnostic.get(bufnr)[1]
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) },
                   position = { line = first.lnum, character = first.col } }
  local responses = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 30000) or {}
  for _, r in pairs(responses) do
    if r.result and r.result.contents then report.hover = r.result.contents.value end
  end
end)
if not ok then report.error = tostring(err) end
finish()
