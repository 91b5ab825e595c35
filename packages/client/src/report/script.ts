/**
 * The pages' only script: expand and collapse the call tree, and open every element before printing (a printed
 * report shows everything). The page reads fully without it.
 */
export const SCRIPT = `
(function(){
  function all(open){document.querySelectorAll('details.call').forEach(function(d){d.open=open;});}
  document.addEventListener('click',function(e){
    var b=e.target.closest&&e.target.closest('button[data-tree]');
    if(!b)return;
    var section=b.closest('section.session');
    section.querySelectorAll('details.call').forEach(function(d){d.open=b.getAttribute('data-tree')==='expand';});
  });
  window.addEventListener('beforeprint',function(){all(true);});
})();
`;
